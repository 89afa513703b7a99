/// A test set-up failure (a server that did not start, a tool that failed, a file that could not
/// be read) with a message that says what is wrong and what to check.
public struct TestFailure: Error, CustomStringConvertible {
    /// What went wrong, in words a person running the tests can act on.
    public let description: String

    /// A failure that says `description`.
    public init(_ description: String) { self.description = description }
}
