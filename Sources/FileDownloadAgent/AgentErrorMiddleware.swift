import FileDownload
import Hummingbird

/// Turns every error a route throws into a JSON answer `{"error", "message"}`: the agent's own
/// errors as they are; a path the API has, asked with a method it does not answer there, as 405
/// `http-405` with `Allow`; Hummingbird's other errors (an unknown path) with their status;
/// anything else as a 500. The server goes on serving.
struct AgentErrorMiddleware: RouterMiddleware {
    typealias Context = AgentRequestContext

    /// The methods of each path of the API.
    let allowed: AgentAllowedMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as AgentAPIError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError where error.status == .notFound && error.body == nil {
            guard let methods = allowed.methods(for: request.uri.path) else {
                return AgentAPIError.jsonResponse(status: .notFound, body: ["error": AgentErrorCode.http(404).rawValue, "message":
                    "no such endpoint: \(request.method) \(request.uri.path) (the API is under /v1; see docs/agent-api.md)"])
            }
            let names = methods.map(\.rawValue).joined(separator: ", ")
            var response = AgentAPIError.jsonResponse(status: .methodNotAllowed, body: ["error": AgentErrorCode.http(405).rawValue, "message":
                "\(request.uri.path) answers \(names), not \(request.method) (see docs/agent-api.md)"])
            response.headers[.allow] = names
            return response
        } catch let error as HTTPError {
            let message = error.body ?? (error.status == .notFound
                ? "no such endpoint: \(request.method) \(request.uri.path) (the API is under /v1; see docs/agent-api.md)"
                : error.status.reasonPhrase)
            return AgentAPIError.jsonResponse(status: error.status, body: ["error": AgentErrorCode.http(error.status.code).rawValue, "message": message])
        } catch {
            context.logger.error("request \(request.method) \(request.uri.path) failed: \(error)")
            return AgentAPIError.jsonResponse(status: .internalServerError,
                                              body: ["error": AgentErrorCode.internal.rawValue, "message": "\(error)"])
        }
    }
}
