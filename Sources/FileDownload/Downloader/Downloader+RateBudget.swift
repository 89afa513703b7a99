extension Downloader {
    /// What the sinks of `e`'s next attempt draw from, for a transport listing
    /// ``TransportCapabilities/rateLimit``: a new ``BandwidthLimiter`` of the download's
    /// ``TransferOptions/maxBytesPerSecond`` inside the overall limit, one budget for every
    /// connection of the attempt; the overall limiter alone when the download has no limit and no
    /// delegate could give it one.
    func rateBudget(for e: DownloadEntry) -> BandwidthLimiter {
        guard e.options.transfer.maxBytesPerSecond != nil || delegate != nil else { return bandwidth }
        return BandwidthLimiter(bytesPerSecond: e.options.transfer.maxBytesPerSecond, within: bandwidth)
    }

    /// Makes the download's rate limit one budget for all its connections: sets the attempt's
    /// budget (``rateBudget(for:)``) to `options.maxBytesPerSecond` as the delegate's
    /// ``DownloaderDelegate/customizeTransfer(_:id:url:)`` left it, and takes the limit out of the
    /// options the transport is given, so that a transport never paces each connection by the
    /// whole limit on top (the sinks pace it: ``TransferSink/pacingDelay``). The overall limit and
    /// schedule hold above the budget: the stricter wins. A transport without `.rateLimit` keeps
    /// the option and paces as it can.
    static func applyRateBudget(_ ctx: AttemptContext, options: inout TransferOptions) {
        guard let budget = ctx.bandwidth else { return }
        let rate = BandwidthLimiter.normalized(options.maxBytesPerSecond)
        options.maxBytesPerSecond = nil
        if budget.isNested, budget.bytesPerSecond != rate { budget.bytesPerSecond = rate }
    }
}
