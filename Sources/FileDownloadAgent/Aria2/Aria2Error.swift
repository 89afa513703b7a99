/// An error answer of aria2's JSON-RPC, as aria2 words it: `{"code": 1, "message": "..."}` for
/// every error of a method (a wrong token is `Unauthorized`, an unknown method `No such method:
/// NAME`), the JSON-RPC codes for a body that is not a call (`-32700 Parse error.`, `-32600
/// Invalid Request.`).
struct Aria2Error: Error, Sendable, Equatable {
    var code: Int64
    var message: String

    init(_ message: String, code: Int64 = 1) {
        self.code = code
        self.message = message
    }

    static let unauthorized = Aria2Error("Unauthorized")
    static let parseError = Aria2Error("Parse error.", code: -32700)
    static let invalidRequest = Aria2Error("Invalid Request.", code: -32600)

    static func noSuchMethod(_ name: String) -> Aria2Error { Aria2Error("No such method: \(name)") }

    /// The error object of an answer.
    var json: Aria2JSON { .object(["code": .int(code), "message": .string(message)]) }
}
