/// Why a test server could not be started or used; the message says what to check.
struct TestServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
