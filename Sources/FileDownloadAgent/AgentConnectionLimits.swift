/// How long the agent's listeners wait for a client and how many connections they keep, so that
/// no local user can freeze the agent by opening connections and sending nothing (or half a
/// request): see `docs/security.md`, "Connections".
///
/// Every listener (the Unix socket and the TCP listener) closes a connection that:
/// - has not sent a complete request head within ``headerTimeout`` of being accepted;
/// - stops in the middle of a request body for ``bodyTimeout`` (each part of the body restarts it);
/// - sends nothing for ``idleTimeout`` after its last answer ended (keep-alive), including a next
///   request head that is only half sent.
///
/// While an answer is being written (an event stream, a long list) no timeout runs.
///
/// A connection over a cap is closed as soon as it is accepted, before any byte of it is read.
/// The peer of a connection is its uid: `SO_PEERCRED` on the Unix socket, the owner of the
/// connecting socket (asked from the kernel with `sock_diag`) on TCP, where every local user
/// connects from 127.0.0.1; when the owner cannot be found, the source address.
public struct AgentConnectionLimits: Sendable, Equatable {
    /// How long a new connection may take to send its first complete request head (default 10 s).
    public var headerTimeout: Duration = .seconds(10)
    /// How long a request body may pause between two of its parts (default 10 s).
    public var bodyTimeout: Duration = .seconds(10)
    /// How long a connection may stay silent after its last answer before its next request head
    /// is complete (default 30 s).
    public var idleTimeout: Duration = .seconds(30)
    /// The Unix socket's own budget: connections open at once on it (default 512). Its
    /// descriptors are kept out of the TCP listener's budget, so no amount of TCP traffic can use
    /// them.
    public var socketConnections: Int = 512
    /// Connections one uid may have open on the Unix socket (default 512: only the agent's user
    /// and root can reach the socket).
    public var socketConnectionsPerPeer: Int = 512
    /// Connections open at once on the TCP listener; `nil` (the default): the descriptor limit
    /// minus ``socketConnections`` and ``reservedDescriptors``, at most 1,024 and at least 16.
    public var tcpConnections: Int?
    /// Connections one peer (uid, else address) may have open on the TCP listener (default 16:
    /// a browser opens at most 6 to one host, plus the page's event stream).
    public var tcpConnectionsPerPeer: Int = 16
    /// Descriptors kept for everything else the agent opens: the store, the staging files and
    /// connections of the downloads, the resolver (default 256).
    public var reservedDescriptors: Int = 256

    public init() {}

    /// The TCP listener's cap for a process whose descriptor limit is `descriptorLimit`:
    /// ``tcpConnections`` when set, else the limit minus the Unix socket's budget and the reserve,
    /// clamped to 16...1,024.
    public func tcpConnections(descriptorLimit: Int) -> Int {
        if let tcpConnections { return tcpConnections }
        return min(1024, max(16, descriptorLimit - socketConnections - reservedDescriptors))
    }
}
