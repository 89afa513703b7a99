/// What a completed file was checked against before it was moved to its destination
/// (``DownloadInfo/checks``).
///
/// Every completed file ended its transfer without an error and passed the delegate's
/// ``DownloaderDelegate/validateFile(at:id:)``; these are the checks beyond that. An empty set
/// means nothing confirmed the file: its length is whatever arrived before the transport saw
/// the end (an HTTP response without `Content-Length`, closed by the server, is such a file).
public struct CompletionChecks: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The file has the length the transport announced before the body (HTTP `Content-Length`
    /// or the total of `Content-Range`, the SFTP file size).
    public static let announcedLength = CompletionChecks(rawValue: 1 << 0)
    /// The file has ``DownloadOptions/expectedSize``.
    public static let expectedSize = CompletionChecks(rawValue: 1 << 1)
    /// The file's SHA-256 is ``DownloadOptions/sha256``.
    public static let sha256 = CompletionChecks(rawValue: 1 << 2)
    /// The file's SHA-256 is the one the server announced for the whole file
    /// (``TransferHead/announcedSHA256``: HTTP `Repr-Digest`, `Content-Digest` or `Digest`).
    public static let serverDigest = CompletionChecks(rawValue: 1 << 3)

    /// Whether something independent of the end of the transfer confirmed the file: a length
    /// announced by the transport, the expected size, the caller's SHA-256 or the server's digest.
    public var confirmsFile: Bool { !isDisjoint(with: [.announcedLength, .expectedSize, .sha256, .serverDigest]) }

    /// Whether a SHA-256 of the whole file confirmed it: the caller's (``sha256``) or the
    /// server's (``serverDigest``).
    public var confirmsContent: Bool { !isDisjoint(with: [.sha256, .serverDigest]) }
}
