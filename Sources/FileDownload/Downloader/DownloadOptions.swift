/// Per-download settings given to ``Downloader/start(id:url:destination:options:)``.
public struct DownloadOptions: Sendable, Hashable, Codable {
    /// What the transport is told (headers, timeouts, rate limit, ...).
    public var transfer: TransferOptions
    /// The size the file must have; a different size fails validation.
    public var expectedSize: Int64?
    /// The SHA-256 the file must have (hex, either case); a different digest fails validation.
    public var sha256: String?
    /// Higher runs first; equal priorities run in the order they were started (FIFO).
    public var priority: Int
    /// Overrides the downloader's retry policy for this download.
    public var retryPolicy: RetryPolicy?

    public init(
        transfer: TransferOptions = TransferOptions(),
        expectedSize: Int64? = nil,
        sha256: String? = nil,
        priority: Int = 0,
        retryPolicy: RetryPolicy? = nil
    ) {
        self.transfer = transfer
        self.expectedSize = expectedSize
        self.sha256 = sha256
        self.priority = priority
        self.retryPolicy = retryPolicy
    }
}
