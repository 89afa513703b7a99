import Foundation
public import Hummingbird
public import FileDownload

/// An error the agent answers a request with: an HTTP status and a JSON body
/// `{"error": "<short code>", "message": "<a sentence a person can act on>"}`, the code one of
/// `AgentErrorCode`'s, which the agent's clients match on.
public struct AgentAPIError: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    /// The short machine-readable code (`bad-json`, `unknown-id`, `duplicate-id`, ...).
    public var code: AgentErrorCode
    /// What to do about it, in words.
    public var message: String

    /// The code as it goes on the wire (the JSON body's `error`).
    public var error: String { code.rawValue }

    public init(_ status: HTTPResponse.Status, _ code: AgentErrorCode, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The status and code for a library error: unknown id 404, duplicate id 409, a state that
    /// does not allow the request 409, a bad URL, scheme, destination, id, header field or SHA-256
    /// 400 (`bad-url`, `bad-destination`, `bad-id`, `bad-header`, `bad-sha256`: the input rules
    /// of `InputValidation`, with its message), anything else 500.
    public init(_ error: DownloadError) {
        switch error.code {
        case .unknownIdentifier: self.init(.notFound, .unknownID, error.message)
        case .duplicateIdentifier: self.init(.conflict, .duplicateID, error.message)
        case .invalidState: self.init(.conflict, .invalidState, error.message)
        case .invalidURL, .unsupportedScheme: self.init(.badRequest, .badURL, error.message)
        case .invalidIdentifier: self.init(.badRequest, .badID, error.message)
        case .invalidHeader: self.init(.badRequest, .badHeader, error.message)
        case .invalidChecksum: self.init(.badRequest, .badSHA256, error.message)
        case .invalidDestination: self.init(.badRequest, .badDestination, error.message)
        default: self.init(.internalServerError, .download(error.code), error.description)
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Self.jsonResponse(status: status, body: ["error": error, "message": message])
    }

    /// A JSON response with `body` (sorted keys).
    static func jsonResponse(status: HTTPResponse.Status, body: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(body)) ?? Data(#"{"error":"internal","message":"the response could not be encoded"}"#.utf8)
        var buffer = ByteBuffer()
        buffer.writeBytes(data)
        buffer.writeString("\n")
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: buffer))
    }
}
