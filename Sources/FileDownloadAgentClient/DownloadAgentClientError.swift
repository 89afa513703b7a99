/// A request the agent refused, or an agent that could not be reached.
public struct DownloadAgentClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status; 0 when no answer came (no agent listens, the connection broke).
    public var status: Int
    /// The agent's short code (`unknown-id`, `duplicate-id`, `bad-url`, ...), or `unreachable`,
    /// `bad-response` for problems on the way.
    public var error: String
    /// A sentence a person can act on.
    public var message: String

    public init(status: Int, error: String, message: String) {
        self.status = status
        self.error = error
        self.message = message
    }

    public var description: String {
        status == 0 ? "\(error): \(message)" : "\(status) \(error): \(message)"
    }
}
