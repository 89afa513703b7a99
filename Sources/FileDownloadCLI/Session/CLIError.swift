/// An error that ends an `fdl` command with a message for a person and a given exit status.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    public var status: ExitStatus
    public var message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
