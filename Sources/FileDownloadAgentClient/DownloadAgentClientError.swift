public import FileDownload

/// A request the agent refused, or an agent that could not be reached.
public struct DownloadAgentClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status; 0 when no answer came (no agent listens, the connection broke).
    public var status: Int
    /// The agent's short code (`AgentErrorCode`: `.unknownID`, `.duplicateID`, `.badURL`, ...),
    /// or `.unreachable`, `.badResponse` for problems on the way. Match on it (and keep a
    /// `default:`: a newer agent may answer with a code this version does not name).
    public var code: AgentErrorCode
    /// A sentence a person can act on.
    public var message: String

    /// The code as it came on the wire (`unknown-id`, ...).
    public var error: String { code.rawValue }

    public init(status: Int, code: AgentErrorCode, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String {
        status == 0 ? "\(error): \(message)" : "\(status) \(error): \(message)"
    }
}
