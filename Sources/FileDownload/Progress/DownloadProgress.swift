/// A snapshot of one download's progress.
public struct DownloadProgress: Sendable, Hashable {
    /// Bytes of the file on disk (including bytes from earlier attempts).
    public var receivedBytes: Int64
    /// The total size, when known.
    public var expectedBytes: Int64?
    /// Smoothed transfer rate over the last few seconds.
    public var bytesPerSecond: Double
    /// Time left at the current rate; `nil` when the size or the rate is unknown.
    public var estimatedTimeRemaining: Duration?

    public init(receivedBytes: Int64, expectedBytes: Int64?, bytesPerSecond: Double = 0,
                estimatedTimeRemaining: Duration? = nil) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.bytesPerSecond = bytesPerSecond
        self.estimatedTimeRemaining = estimatedTimeRemaining
    }

    /// `receivedBytes / expectedBytes` clamped to 0...1; 0 when the size is unknown.
    public var fractionCompleted: Double {
        guard let expected = expectedBytes, expected > 0 else { return 0 }
        return min(1, max(0, Double(receivedBytes) / Double(expected)))
    }
}
