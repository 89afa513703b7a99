import Foundation
import Hummingbird
import HTTPTypes
import Logging
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The agent's optional TCP listener on 127.0.0.1: the same API as the Unix socket, guarded by
/// ``WebGuardMiddleware`` (Host, Origin, bearer token; no cookie) instead of
/// `SO_PEERCRED`, plus the web page (``WebPage``) under `/ui/`. Every answer carries the headers of
/// ``SecurityHeadersResponder``.
///
/// ``run()`` binds 127.0.0.1:`requestedPort` (0: any free port), then writes the port it got to
/// `STATE/agent.port` (0600) and calls `onListening`; it serves until a graceful shutdown and
/// removes `STATE/agent.port` when it stops. Connections are held to `limits` (timeouts) and
/// `gate` (caps), see ``AgentConnectionLimits``.
struct AgentWebServer: Sendable {
    let requestedPort: Int
    let stateDirectory: String
    let token: AgentToken
    let api: AgentAPI
    let logger: Logger
    /// The timeouts and the per-peer cap of `limits`, and the total cap `gate` holds.
    let limits: AgentConnectionLimits
    let gate: ConnectionGate
    let onListening: @Sendable (AgentWebEndpoint) async -> Void
    /// Whether aria2's JSON-RPC is served at `/jsonrpc` (``Aria2RPC``, ``Aria2WebSocket``).
    var aria2RPC = false

    func run() async throws {
        let port = WebPort()
        var site = WebGuardMiddleware(token: token, port: port)
        if aria2RPC { site.tokenInBody = ["/jsonrpc"] }
        let router = api.router(guardedBy: site)
        addPage(to: router)
        let rpc = aria2RPC ? Aria2RPC(api: api, token: token) : nil
        rpc?.addRoute(to: router)
        let portPath = AgentWebEndpoint.portPath(in: stateDirectory)
        let (requestedPort, stateDirectory, token, logger, onListening) = (requestedPort, stateDirectory, token, logger, onListening)
        let app = Application(
            responder: SecurityHeadersResponder(inner: router.buildResponder()),
            server: rpc.map { Aria2WebSocket(rpc: $0, site: site).builder(limits: limits, gate: gate) }
                ?? GuardedHTTP1Channel.builder(limits: limits, gate: gate, transport: .tcp),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: requestedPort), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? requestedPort
                port.set(bound)
                do {
                    try AgentWebEndpoint.writePort(bound, stateDirectory: stateDirectory)
                } catch {
                    logger.error("\(error)")
                }
                await onListening(AgentWebEndpoint(port: bound, token: token))
            },
            logger: logger)
        defer { unlink(portPath) }
        try await app.run()
    }

    /// `GET /` (a redirect to the page) and the page's three files, served without a token (they
    /// hold no data; the page reads the token from its URL's fragment, see ``WebGuardMiddleware``).
    /// There is no login route: nothing trades the token for a cookie.
    private func addPage(to router: Router<AgentRequestContext>) {
        router.get("/") { _, _ in Self.redirect(to: "/ui/") }
        router.get("ui") { _, _ in Self.file(WebPage.html, type: "text/html; charset=utf-8") }
        router.get("ui/app.css") { _, _ in Self.file(WebPage.style, type: "text/css; charset=utf-8") }
        router.get("ui/app.js") { _, _ in Self.file(WebPage.script, type: "text/javascript; charset=utf-8") }
    }

    private static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    private static func file(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
