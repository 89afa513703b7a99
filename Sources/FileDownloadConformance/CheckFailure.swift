/// Thrown inside a check to end it as failed with `message`.
struct CheckFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Ends the check as failed with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(message()) }
}
