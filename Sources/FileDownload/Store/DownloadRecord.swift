public import Foundation

/// What a ``DownloadStore`` keeps of one download: everything needed to restore it after the
/// process died, and nothing secret (no passwords in URLs, no sensitive headers, no credentials).
public struct DownloadRecord: Sendable, Hashable, Codable {
    public var id: String
    /// The remote URL without its password.
    public var url: URL
    /// Where the finished file goes.
    public var destination: URL
    /// The staging file (`<destination>.part` unless configured otherwise).
    public var partPath: String
    public var state: DownloadState
    /// The validator of the remote file the bytes on disk belong to.
    public var validator: Validator?
    /// Bytes known to be on disk (flushed) at the last checkpoint.
    public var checkpointedBytes: Int64
    /// The total size, when known.
    public var expectedLength: Int64?
    /// Options without secrets.
    public var options: DownloadOptions
    /// Position in the FIFO queue: smaller runs first (within a priority).
    public var queueOrder: Int64
    /// The last error's code and message stack, if the download failed or was interrupted.
    public var errorCode: String?
    public var errorMessages: [String]
    /// Attempts made so far (1 after the first).
    public var attempts: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, url: URL, destination: URL, partPath: String, state: DownloadState,
        validator: Validator? = nil, checkpointedBytes: Int64 = 0, expectedLength: Int64? = nil,
        options: DownloadOptions = DownloadOptions(), queueOrder: Int64 = 0,
        errorCode: String? = nil, errorMessages: [String] = [], attempts: Int = 0,
        createdAt: Date = Date(), updatedAt: Date = Date()
    ) {
        self.id = id
        self.url = url.removingCredentials
        self.destination = destination
        self.partPath = partPath
        self.state = state
        self.validator = validator
        self.checkpointedBytes = checkpointedBytes
        self.expectedLength = expectedLength
        self.options = options.withoutSecrets
        self.queueOrder = queueOrder
        self.errorCode = errorCode
        self.errorMessages = errorMessages
        self.attempts = attempts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
