import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The credentials of the process at the other end of a Unix domain socket, as the kernel recorded
/// them when it connected (`SO_PEERCRED`): they cannot be forged by the peer.
struct PeerCredentials: Sendable, Hashable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    /// Reads the peer credentials of `channel`'s socket.
    ///
    /// - Throws: when the channel is not a socket or the kernel refuses the query.
    static func of(_ channel: any Channel) async throws -> PeerCredentials {
        guard let provider = channel as? any SocketOptionProvider else {
            throw AgentAPIError(.forbidden, .peer, "the connection is not a socket; its user cannot be checked")
        }
        // The kernel fills a `struct ucred` (pid_t, uid_t, gid_t), which has this type's layout;
        // Glibc shows `struct ucred` to Swift only under _GNU_SOURCE.
        return try await provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)).get()
    }
}
