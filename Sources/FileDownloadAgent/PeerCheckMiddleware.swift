import Foundation
import Hummingbird
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Refuses every request whose connection comes from another user than the agent's own: the
/// peer's uid is read from the socket (`SO_PEERCRED`, set by the kernel), and a mismatch is a
/// 403 naming both uids. The refusal is logged.
struct PeerCheckMiddleware: RouterMiddleware {
    typealias Context = AgentRequestContext

    private let ownUID = getuid()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let peer = try await PeerCredentials.of(context.channel)
        guard peer.uid == ownUID else {
            context.logger.warning("refused a request from uid \(peer.uid) (pid \(peer.pid)): the agent serves uid \(ownUID) only")
            throw AgentAPIError(.forbidden, .forbidden,
                                "this download agent serves only its own user (uid \(ownUID)); your uid is \(peer.uid)")
        }
        return try await next(request, context)
    }
}
