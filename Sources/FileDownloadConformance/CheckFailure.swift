/// Thrown inside a check to end it as failed with `message`.
struct CheckFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
