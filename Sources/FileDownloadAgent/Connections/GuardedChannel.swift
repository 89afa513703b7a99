import HummingbirdCore
import Logging
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/1.1 child channel of the agent's listeners: Hummingbird's, behind the connection rules.
typealias GuardedHTTP1Channel = GuardedChannel<HTTP1Channel>

/// A Hummingbird child channel (`Inner`: HTTP/1.1, or HTTP/1.1 with the WebSocket upgrade of the
/// aria2 RPC) behind the agent's connection rules: at accept, the peer (``ConnectionPeer``) is
/// found and asked of the listener's ``ConnectionGate``; a refused connection is closed before any
/// of its bytes is read, an admitted one gets a ``RequestTimeoutHandler`` (for its HTTP requests)
/// and is counted until it closes.
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    /// How the peer of a connection is found.
    enum Transport: Sendable {
        /// `SO_PEERCRED`.
        case unixSocket
        /// The owner of the connecting socket (``LoopbackPeerUID``), else the source address.
        case tcp
    }

    let inner: Inner
    let gate: ConnectionGate
    let transport: Transport
    /// When set, a ``FirstHeadTimeoutHandler`` with this timeout goes before `inner`'s handlers:
    /// for an `inner` whose own timeouts start after the first request head (the WebSocket upgrade).
    var firstHeadTimeout: TimeAmount?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (gate, inner, firstHeadTimeout) = (gate, inner, firstHeadTimeout)
        return peer(of: channel).flatMap { peer in
            guard gate.admit(peer) else {
                channel.close(promise: nil)
                return channel.eventLoop.makeFailedFuture(ConnectionRefused())
            }
            channel.closeFuture.whenComplete { _ in gate.release(peer) }
            if let timeout = firstHeadTimeout {
                do {
                    try channel.pipeline.syncOperations.addHandler(FirstHeadTimeoutHandler(timeout: timeout))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            return inner.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }

    private func peer(of channel: any Channel) -> EventLoopFuture<ConnectionPeer> {
        let address = ConnectionPeer.address(channel.remoteAddress?.ipAddress ?? "unknown")
        switch transport {
        case .tcp:
            let uid = LoopbackPeerUID.of(local: channel.localAddress, remote: channel.remoteAddress)
            return channel.eventLoop.makeSucceededFuture(uid.map { .uid($0) } ?? address)
        case .unixSocket:
            guard let provider = channel as? any SocketOptionProvider else {
                return channel.eventLoop.makeSucceededFuture(address)
            }
            let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
            return credentials.map { ConnectionPeer.uid($0.uid) }.recover { _ in address }
        }
    }

    /// Why a refused connection's setup fails (NIO drops the connection; nothing else sees it).
    struct ConnectionRefused: Error {}
}

extension GuardedChannel where Inner == HTTP1Channel {
    /// The server builder of a listener: HTTP/1.1 with the timeouts of `limits`, behind `gate`.
    static func builder(limits: AgentConnectionLimits, gate: ConnectionGate, transport: Transport) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedHTTP1Channel(
                inner: HTTP1Channel(responder: responder,
                                    configuration: .init(additionalChannelHandlers: [RequestTimeoutHandler(limits: limits)])),
                gate: gate, transport: transport)
        }
    }
}
