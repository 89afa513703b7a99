/// Progress over all downloads that are not cancelled, by bytes.
///
/// The fraction is `Σ received / Σ expected` over downloads whose size is known (never a mean of
/// per-download fractions, so a large file weighs more than a small one). Downloads of unknown size
/// count in ``receivedBytes`` and ``unknownSizeCount`` only.
public struct TotalProgress: Sendable, Hashable {
    public var receivedBytes: Int64
    /// Σ expected over downloads of known size.
    public var expectedBytes: Int64
    /// Σ received over those same downloads (capped at each one's size).
    public var receivedOfKnownSize: Int64
    public var bytesPerSecond: Double
    public var estimatedTimeRemaining: Duration?
    /// Downloads waiting or downloading.
    public var activeCount: Int
    public var unknownSizeCount: Int

    public init(receivedBytes: Int64 = 0, expectedBytes: Int64 = 0, receivedOfKnownSize: Int64 = 0,
                bytesPerSecond: Double = 0, estimatedTimeRemaining: Duration? = nil,
                activeCount: Int = 0, unknownSizeCount: Int = 0) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.receivedOfKnownSize = receivedOfKnownSize
        self.bytesPerSecond = bytesPerSecond
        self.estimatedTimeRemaining = estimatedTimeRemaining
        self.activeCount = activeCount
        self.unknownSizeCount = unknownSizeCount
    }

    /// In 0...1; 0 when no size is known.
    public var fractionCompleted: Double {
        guard expectedBytes > 0 else { return 0 }
        return min(1, Double(receivedOfKnownSize) / Double(expectedBytes))
    }
}
