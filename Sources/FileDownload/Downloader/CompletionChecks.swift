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

    /// Whether something independent of the end of the transfer confirmed the file: a length
    /// announced by the transport, the expected size, or the SHA-256.
    public var confirmsFile: Bool { !isDisjoint(with: [.announcedLength, .expectedSize, .sha256]) }
}
