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
    /// Bytes from offset 0 known to be on disk (flushed) at the last checkpoint, without a gap: where
    /// a single connection continues. For a download over several connections it is the segments'
    /// contiguous prefix (``segments`` say what else is on disk; ``bytesDone`` is for display).
    public var checkpointedBytes: Int64
    /// The segments of a download fetched over several connections, each with its own bytes on
    /// disk (``SegmentCheckpoint``); empty for a download over one connection, which continues from
    /// ``checkpointedBytes``.
    public var segments: [SegmentCheckpoint]
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
        validator: Validator? = nil, checkpointedBytes: Int64 = 0, segments: [SegmentCheckpoint] = [],
        expectedLength: Int64? = nil,
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
        self.segments = segments
        self.expectedLength = expectedLength
        self.options = options.withoutSecrets
        self.queueOrder = queueOrder
        self.errorCode = errorCode
        self.errorMessages = errorMessages
        self.attempts = attempts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, url, destination, partPath, state, validator, checkpointedBytes, segments,
             expectedLength, options, queueOrder, errorCode, errorMessages, attempts, createdAt,
             updatedAt
    }

    /// Decodes a record; `segments` may be missing (records written before segments existed).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id),
            url: try c.decode(URL.self, forKey: .url),
            destination: try c.decode(URL.self, forKey: .destination),
            partPath: try c.decode(String.self, forKey: .partPath),
            state: try c.decode(DownloadState.self, forKey: .state),
            validator: try c.decodeIfPresent(Validator.self, forKey: .validator),
            checkpointedBytes: try c.decode(Int64.self, forKey: .checkpointedBytes),
            segments: try c.decodeIfPresent([SegmentCheckpoint].self, forKey: .segments) ?? [],
            expectedLength: try c.decodeIfPresent(Int64.self, forKey: .expectedLength),
            options: try c.decode(DownloadOptions.self, forKey: .options),
            queueOrder: try c.decode(Int64.self, forKey: .queueOrder),
            errorCode: try c.decodeIfPresent(String.self, forKey: .errorCode),
            errorMessages: try c.decode([String].self, forKey: .errorMessages),
            attempts: try c.decode(Int.self, forKey: .attempts),
            createdAt: try c.decode(Date.self, forKey: .createdAt),
            updatedAt: try c.decode(Date.self, forKey: .updatedAt))
    }
}
