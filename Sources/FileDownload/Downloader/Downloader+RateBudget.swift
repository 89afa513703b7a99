extension Downloader {
    /// What the sinks of `e`'s next attempt draw from, for a transport listing
    /// ``TransportCapabilities/rateLimit``: a new ``BandwidthLimiter`` of the download's
    /// ``TransferOptions/maxBytesPerSecond`` inside the overall limit, one budget for every
    /// connection of the attempt; the overall limiter alone when the download has no limit and no
    /// delegate could give it one. The attempt applies it (``Attempt/applyRateBudget(_:)``).
    func rateBudget(for e: DownloadEntry) -> BandwidthLimiter {
        guard e.options.transfer.maxBytesPerSecond != nil || delegate != nil else { return bandwidth }
        return BandwidthLimiter(bytesPerSecond: e.options.transfer.maxBytesPerSecond, within: bandwidth)
    }
}
