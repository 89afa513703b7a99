import Hummingbird
import HTTPTypes
import Logging

/// Guards every request that comes over TCP, in this order:
///
/// 1. The `Host` must be `127.0.0.1:PORT` or `localhost:PORT` (PORT the one the agent listens on):
///    a page of another site that made its name resolve to 127.0.0.1 (DNS rebinding) is refused
///    with 403 `bad-host`. Until the port is known, every request is refused.
/// 2. An `Origin`, when there is one, must be `http://127.0.0.1:PORT` or `http://localhost:PORT`:
///    a request a page of another origin makes (a preflight included) is refused with 403
///    `foreign-origin`, and no answer carries an `Access-Control-Allow-*` field.
/// 3. The page's own files (`GET /`, `/ui/`, `/ui/app.js`, `/ui/app.css`: the same for everyone,
///    no data; and `/favicon.ico`, a 404 a browser asks for with every page) are served without a
///    token; every other request must carry
///    `Authorization: Bearer TOKEN`; otherwise 401 `unauthorized`. No cookie is set or read: a
///    browser attaches a cookie for 127.0.0.1 to requests any page starts (cookies do not
///    isolate ports), while only the agent's own page, which read the token from its URL's
///    fragment, sets this header.
///
/// Refusals are logged with the method and path (never the query, the headers or the token).
struct WebGuardMiddleware: RouterMiddleware {
    typealias Context = AgentRequestContext

    /// The paths served without a token: the page's static files, and the icon browsers ask for.
    static let publicPaths: Set<String> = ["/", "/ui", "/ui/", "/ui/app.js", "/ui/app.css", "/favicon.ico"]

    let token: AgentToken
    let port: WebPort
    /// Paths whose `POST` carries the token in its body and whose handler checks it (the aria2
    /// RPC's `/jsonrpc`, `token:TOKEN`): checked for Host and Origin here, not for the header.
    var tokenInBody: Set<String> = []

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try checkSite(request.head, logger: context.logger)
        if request.method == .get || request.method == .head, Self.publicPaths.contains(request.uri.path) {
            return try await next(request, context)
        }
        if request.method == .post, tokenInBody.contains(request.uri.path) {
            return try await next(request, context)
        }
        guard isAuthorized(request.head) else {
            context.logger.warning("refused a TCP request \(request.method) \(request.uri.path) without a valid token")
            throw AgentAPIError(.unauthorized, .unauthorized,
                                "send \"Authorization: Bearer TOKEN\" (TOKEN is in STATE/agent.token), or open the URL `fdl ui` prints")
        }
        return try await next(request, context)
    }

    /// Checks 1 and 2 (Host, then Origin) of `head`, logging and throwing the refusal; also run on
    /// the aria2 RPC's WebSocket upgrade requests, which no middleware sees.
    func checkSite(_ head: HTTPRequest, logger: Logger) throws {
        let port = port.value
        let hosts = ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard port != 0, let host = head.authority?.lowercased(), hosts.contains(host) else {
            logger.warning("refused a TCP request for host \(head.authority ?? "(none)"): only \(hosts.joined(separator: " or ")) is served")
            throw AgentAPIError(.forbidden, .badHost,
                                "the agent answers only requests for \(hosts.joined(separator: " or ")) (Host header)")
        }
        if let origin = head.headerFields[.origin] {
            guard hosts.map({ "http://" + $0 }).contains(origin.lowercased()) else {
                logger.warning("refused a TCP request \(head.method) \((head.path ?? "").prefix { $0 != "?" }) from the origin \(origin)")
                throw AgentAPIError(.forbidden, .foreignOrigin,
                                    "requests from pages of other origins (\(origin)) are refused")
            }
        }
    }

    /// Whether the request carries `Authorization: Bearer TOKEN` with the agent's token.
    func isAuthorized(_ head: HTTPRequest) -> Bool {
        guard let authorization = head.headerFields[.authorization] else { return false }
        let prefix = "bearer "
        guard authorization.count > prefix.count, authorization.prefix(prefix.count).lowercased() == prefix else { return false }
        return token.matches(authorization.dropFirst(prefix.count))
    }
}
