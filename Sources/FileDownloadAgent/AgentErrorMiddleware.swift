import Hummingbird

/// Turns every error a route throws into a JSON answer `{"error", "message"}`: the agent's own
/// errors as they are, Hummingbird's (an unknown path, a wrong method) with their status, anything
/// else as a 500. The server goes on serving.
struct AgentErrorMiddleware: RouterMiddleware {
    typealias Context = AgentRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as AgentAPIError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let message = error.body ?? (error.status == .notFound
                ? "no such endpoint: \(request.method) \(request.uri.path) (the API is under /v1; see docs/agent-api.md)"
                : error.status.reasonPhrase)
            return AgentAPIError.jsonResponse(status: error.status, body: ["error": "http-\(error.status.code)", "message": message])
        } catch {
            context.logger.error("request \(request.method) \(request.uri.path) failed: \(error)")
            return AgentAPIError.jsonResponse(status: .internalServerError,
                                              body: ["error": "internal", "message": "\(error)"])
        }
    }
}
