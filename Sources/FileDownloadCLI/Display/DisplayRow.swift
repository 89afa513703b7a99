/// What the live display shows of one download: a snapshot, independent of the downloader.
public struct DisplayRow: Sendable, Hashable {
    /// The download's id (its file name by default).
    public var name: String
    /// `downloading`, `waiting`, `paused`, ... as in `DownloadState`.
    public var state: String
    public var receivedBytes: Int64
    public var expectedBytes: Int64?
    public var bytesPerSecond: Double
    public var estimatedTimeRemaining: Duration?

    public init(name: String, state: String, receivedBytes: Int64, expectedBytes: Int64?,
                bytesPerSecond: Double = 0, estimatedTimeRemaining: Duration? = nil) {
        self.name = name
        self.state = state
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.bytesPerSecond = bytesPerSecond
        self.estimatedTimeRemaining = estimatedTimeRemaining
    }

    /// `receivedBytes / expectedBytes` in 0...1, or `nil` when the size is unknown.
    public var fraction: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}
