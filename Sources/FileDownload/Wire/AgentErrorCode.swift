/// The short, machine-readable code of an error of the download agent's API: the `error` of its
/// JSON answer `{"error": "<code>", "message": "<a sentence a person can act on>"}`
/// (`docs/agent-api.md`), shared by the agent (which answers with it) and its clients (which
/// match on it), and the codes a client gives to problems on its side (``unreachable``,
/// ``badResponse``, ``eventsMissed``, ``badCursor``).
///
/// An open set, like ``DownloadError/Code``: a newer agent may answer with a code this version
/// does not name, which decodes and compares as its raw value. Match the codes you handle and
/// keep a `default:`. The raw values are the strings on the wire.
public struct AgentErrorCode: Hashable, Sendable, RawRepresentable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // MARK: the request (400, 413)

    /// The body is not the JSON the endpoint reads (400).
    public static let badJSON = AgentErrorCode(rawValue: "bad-json")
    /// An id that is empty, too long or has a character an id may not have; or a path's `{id}`
    /// with a malformed %-escape (400).
    public static let badID = AgentErrorCode(rawValue: "bad-id")
    /// A URL that is not absolute, or whose scheme the agent cannot fetch (400).
    public static let badURL = AgentErrorCode(rawValue: "bad-url")
    /// A mirror that is not an absolute URL, or too many mirrors (400).
    public static let badMirror = AgentErrorCode(rawValue: "bad-mirror")
    /// A destination that is not an absolute file path the agent may write (400).
    public static let badDestination = AgentErrorCode(rawValue: "bad-destination")
    /// A `sha256` that is not 64 hexadecimal digits (400).
    public static let badSHA256 = AgentErrorCode(rawValue: "bad-sha256")
    /// A negative `expectedSize` (400).
    public static let badSize = AgentErrorCode(rawValue: "bad-size")
    /// A `maxConnections` out of range (400).
    public static let badConnections = AgentErrorCode(rawValue: "bad-connections")
    /// A header field with a bad name or value, or one the agent sets itself (400).
    public static let badHeader = AgentErrorCode(rawValue: "bad-header")
    /// A `state` filter that names no state (400).
    public static let badState = AgentErrorCode(rawValue: "bad-state")
    /// An `after` cursor that is not a page's `next` (400).
    public static let badAfter = AgentErrorCode(rawValue: "bad-after")
    /// A page `limit` or an overall limit out of range (400).
    public static let badLimit = AgentErrorCode(rawValue: "bad-limit")
    /// An event sequence number (`Last-Event-ID`, `?since=`) that is not a whole number ≥ 0 (400).
    public static let badSince = AgentErrorCode(rawValue: "bad-since")
    /// A `progress` parameter other than `true` or `false` (400).
    public static let badProgress = AgentErrorCode(rawValue: "bad-progress")
    /// An `expiresAt` that is not an RFC 3339 time (400).
    public static let badExpiresAt = AgentErrorCode(rawValue: "bad-expires-at")
    /// A body larger than the endpoint takes (413).
    public static let bodyTooLarge = AgentErrorCode(rawValue: "body-too-large")
    /// A batch with more downloads than one request may add (413).
    public static let batchTooLarge = AgentErrorCode(rawValue: "batch-too-large")
    /// A download's `"notify"` is not usable: its webhook not an `http://` or `https://` URL with
    /// a host, its command empty (400).
    public static let badNotify = AgentErrorCode(rawValue: "bad-notify")

    // MARK: the downloads (404, 409)

    /// No download has the id (404).
    public static let unknownID = AgentErrorCode(rawValue: "unknown-id")
    /// A download with the id exists (409).
    public static let duplicateID = AgentErrorCode(rawValue: "duplicate-id")
    /// No dead delivery has the key (404): it was retried, dropped, or never dead.
    public static let unknownDelivery = AgentErrorCode(rawValue: "unknown-delivery")
    /// The download's state does not allow the request (409): pause a completed one, forget
    /// one that runs.
    public static let invalidState = AgentErrorCode(rawValue: "invalid-state")

    // MARK: who asks (401, 403)

    /// A request from another user (403).
    public static let forbidden = AgentErrorCode(rawValue: "forbidden")
    /// A connection whose user cannot be checked (403).
    public static let peer = AgentErrorCode(rawValue: "peer")
    /// A TCP request without the agent's token (401).
    public static let unauthorized = AgentErrorCode(rawValue: "unauthorized")
    /// A TCP request whose `Host` is not the agent's own (403).
    public static let badHost = AgentErrorCode(rawValue: "bad-host")
    /// A TCP request from a page of another origin (403).
    public static let foreignOrigin = AgentErrorCode(rawValue: "foreign-origin")

    // MARK: the agent

    /// Something failed in the agent (500).
    public static let `internal` = AgentErrorCode(rawValue: "internal")

    /// An HTTP error without a code of the API's own: `http-404` (no such endpoint), `http-405`
    /// (a method the path does not answer), or an answer whose body is not the API's JSON error.
    public static func http(_ status: Int) -> AgentErrorCode {
        AgentErrorCode(rawValue: "http-\(status)")
    }

    /// A library error that has no code of the API's own (a 500): its ``DownloadError/Code``,
    /// as it is.
    public static func download(_ code: DownloadError.Code) -> AgentErrorCode {
        AgentErrorCode(rawValue: code.rawValue)
    }

    // MARK: the client's side

    /// No agent accepts connections on the socket, or the connection broke before the answer
    /// (status 0).
    public static let unreachable = AgentErrorCode(rawValue: "unreachable")
    /// The agent accepted the connection but did not answer within the client's
    /// `answerTimeout` (status 0).
    public static let noAnswer = AgentErrorCode(rawValue: "no-answer")
    /// The agent's answer is not what the client understands.
    public static let badResponse = AgentErrorCode(rawValue: "bad-response")
    /// Journalled events after the client's cursor are gone (the journal keeps the last 10,000).
    public static let eventsMissed = AgentErrorCode(rawValue: "events-missed")
    /// A cursor file that does not hold a sequence number, or cannot be written.
    public static let badCursor = AgentErrorCode(rawValue: "bad-cursor")
}
