public import Foundation

/// One attempt's worth of instructions for a ``Transport``.
public struct TransferRequest: Sendable {
    /// The identifier of the download this attempt belongs to (for logs; never a secret).
    public var downloadID: String
    /// The remote resource.
    public var url: URL
    /// The offset to start from: the number of bytes already on disk. 0 for a fresh start.
    public var offset: Int64
    /// Where the bytes asked for end (exclusive): with an end the request asks for the range
    /// `offset ..< end` only; `nil` asks for everything from ``offset`` to the end of the resource.
    ///
    /// Only sent to a transport listing ``TransportCapabilities/ranges``, and always above
    /// ``offset``. What the transport must do with it is the "Ranges" section of ``Transport``:
    /// the same head and validator rules as a resume, and exactly the bytes
    /// `offset ..< min(end, length)`. The staging file holds the bytes before ``offset`` as for a
    /// resume; the downloader's ``TransferWriter`` for the attempt refuses a body that goes past it.
    public var end: Int64?
    /// The validator remembered from the previous attempt, if any. When present and the remote
    /// resource no longer matches it, the transport restarts from zero
    /// (``ResumeDisposition/restarted(_:)`` with ``RestartReason/validatorChanged``).
    public var validator: Validator?
    /// The total length of the remote resource as the downloader knows it from earlier attempts
    /// (the length the last head announced, else the caller's expected size), or `nil` when
    /// nothing is known or ``offset`` is 0.
    ///
    /// It is what the bytes on disk belong to, like ``validator``: a transport that resumes at
    /// ``offset`` and learns a different total from the server must not append (the remote
    /// resource is another one), and must not report ``ResumeDisposition/complete`` unless the
    /// server's total equals both this length and ``offset``.
    public var expectedLength: Int64?
    /// Headers, timeouts, rate limit and other per-download settings.
    public var options: TransferOptions
    /// 1 for the first attempt of a download, 2 for the first retry, and so on.
    public var attempt: Int
    /// How many connections the download's attempt may use at once: more than 1 when it is
    /// fetched in segments (``DownloadOptions/maxConnections``, as the downloader allows it
    /// now), 1 for one stream. A transport that bounds its connections per host may let such a
    /// download open this many (within a hard bound of its own) instead of sharing fewer.
    public var connections: Int = 1

    private let authenticator: @Sendable (AuthChallenge) async -> AuthDisposition

    /// Creates a request. The downloader builds these; tests and the conformance suite may too.
    ///
    /// - Parameters:
    ///   - downloadID: the id of the download the attempt belongs to (``downloadID``).
    ///   - url: the remote resource (``url``).
    ///   - offset: the byte to start from; 0 for the whole resource (``offset``).
    ///   - end: where the range asked for ends (exclusive), above `offset`; `nil` for the rest of
    ///     the resource (``end``).
    ///   - validator: what the bytes before `offset` belong to (``validator``).
    ///   - expectedLength: the total length known from earlier attempts (``expectedLength``).
    ///   - options: per-download settings (``options``).
    ///   - attempt: 1 for the first attempt, 2 for the first retry, ... (``attempt``).
    ///   - authenticate: answers auth challenges; the default answers
    ///     ``AuthDisposition/performDefaultHandling``.
    public init(
        downloadID: String,
        url: URL,
        offset: Int64 = 0,
        end: Int64? = nil,
        validator: Validator? = nil,
        expectedLength: Int64? = nil,
        options: TransferOptions = TransferOptions(),
        attempt: Int = 1,
        authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling }
    ) {
        self.downloadID = downloadID
        self.url = url
        self.offset = offset
        self.end = end
        self.validator = validator
        self.expectedLength = expectedLength
        self.options = options
        self.attempt = attempt
        self.authenticator = authenticate
    }

    /// Asks the downloader's delegate (or the default policy) how to answer an auth challenge.
    ///
    /// Call it from the transfer's task, not from an I/O thread. It may take as long as the
    /// delegate needs; the request timeout does not run meanwhile.
    public func authenticate(_ challenge: AuthChallenge) async -> AuthDisposition {
        await authenticator(challenge)
    }
}
