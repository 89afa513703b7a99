/// Who a connection belongs to, for the per-peer caps of ``ConnectionGate``.
enum ConnectionPeer: Hashable, Sendable, CustomStringConvertible {
    /// A local user (`SO_PEERCRED` on the Unix socket, the connecting socket's owner on TCP).
    case uid(UInt32)
    /// A source address whose owner could not be found.
    case address(String)

    var description: String {
        switch self {
        case .uid(let uid): "uid \(uid)"
        case .address(let address): "address \(address)"
        }
    }
}
