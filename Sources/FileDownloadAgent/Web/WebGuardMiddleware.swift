import Hummingbird
import HTTPTypes

/// Guards every request that comes over TCP, in this order:
///
/// 1. The `Host` must be `127.0.0.1:PORT` or `localhost:PORT` (PORT the one the agent listens on):
///    a page of another site that made its name resolve to 127.0.0.1 (DNS rebinding) is refused
///    with 403 `bad-host`. Until the port is known, every request is refused.
/// 2. An `Origin`, when there is one, must be `http://127.0.0.1:PORT` or `http://localhost:PORT`:
///    a request a page of another origin makes is refused with 403 `foreign-origin`.
/// 3. Except for `GET /ui/login` (which checks the token in its query), the request must carry
///    `Authorization: Bearer TOKEN` or the session cookie `fdl_agent_session=TOKEN`; otherwise
///    401 `unauthorized`.
///
/// Refusals are logged without the token.
struct WebGuardMiddleware: RouterMiddleware {
    typealias Context = AgentRequestContext

    /// The name of the session cookie the login sets.
    static let cookieName = "fdl_agent_session"

    let token: AgentToken
    let port: WebPort

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let port = port.value
        let hosts = ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard port != 0, let host = request.head.authority?.lowercased(), hosts.contains(host) else {
            context.logger.warning("refused a TCP request for host \(request.head.authority ?? "(none)"): only \(hosts.joined(separator: " or ")) is served")
            throw AgentAPIError(.forbidden, "bad-host",
                                "the agent answers only requests for \(hosts.joined(separator: " or ")) (Host header)")
        }
        if let origin = request.headers[.origin] {
            guard hosts.map({ "http://" + $0 }).contains(origin.lowercased()) else {
                context.logger.warning("refused a TCP request from the origin \(origin)")
                throw AgentAPIError(.forbidden, "foreign-origin",
                                    "requests from pages of other origins (\(origin)) are refused")
            }
        }
        if request.method == .get, request.uri.path == "/ui/login" {
            return try await next(request, context)
        }
        guard isAuthorized(request) else {
            throw AgentAPIError(.unauthorized, "unauthorized",
                                "send \"Authorization: Bearer TOKEN\" (TOKEN is in STATE/agent.token), or open the URL `fdl ui` prints")
        }
        return try await next(request, context)
    }

    private func isAuthorized(_ request: Request) -> Bool {
        if let authorization = request.headers[.authorization] {
            let prefix = "bearer "
            if authorization.count > prefix.count, authorization.prefix(prefix.count).lowercased() == prefix {
                return token.matches(authorization.dropFirst(prefix.count))
            }
            return false
        }
        if let cookie = request.cookies[Self.cookieName] {
            return token.matches(cookie.value)
        }
        return false
    }
}
