public import Hummingbird
public import NIOCore

/// The request context of the agent's routes: Hummingbird's core storage plus the connection the
/// request came on, so the peer's credentials can be read from its socket.
public struct AgentRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection (a Unix domain socket) the request arrived on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// The largest request body read (4 MiB, a batch add's); above it a request is refused with
    /// 413 `body-too-large`. A single download request is refused above 64 KiB.
    public var maxUploadSize: Int { AgentAPI.maxBatchBodySize }
}
