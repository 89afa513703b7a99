/// Why the agent could not start (its socket or state directory, a lock, the store); the
/// message says what to do.
public struct AgentStartError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
