import Synchronization

/// One WebSocket connection of the aria2 RPC: whether it has shown the agent's token (a call with
/// the right `token:` parameter, or `Authorization: Bearer TOKEN` on its upgrade request). Only
/// then does it get notifications.
final class Aria2Session: Sendable {
    private let authenticated: Mutex<Bool>

    init(authenticated: Bool) {
        self.authenticated = Mutex(authenticated)
    }

    var isAuthenticated: Bool { authenticated.withLock { $0 } }

    func authenticate() {
        authenticated.withLock { $0 = true }
    }
}
