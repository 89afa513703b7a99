import NIOCore

/// Closes a connection whose first request head is not complete within the header timeout, on a
/// listener where ``RequestTimeoutHandler`` comes too late for it: with the aria2 RPC's WebSocket
/// upgrade, the HTTP handlers that follow the decoder (``RequestTimeoutHandler`` among them) are
/// added only once the first head has been read and found not to be an upgrade.
///
/// It sits before the HTTP decoder and reads bytes: once they hold the end of a head (an empty
/// line, CR LF CR LF) it removes itself, and the next handlers' timeouts (HTTP) or the
/// WebSocket's pings take over.
final class FirstHeadTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?
    /// The last bytes read (at most 3), so an end of head split across reads is found.
    private var tail: [UInt8] = []

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil { arm(context: context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = tail + Array(unwrapInboundIn(data).readableBytesView)
        let ended = bytes.count >= 4 && (0...(bytes.count - 4)).contains { index in
            bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10
        }
        context.fireChannelRead(data)
        if ended {
            timer?.cancel()
            timer = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } else {
            tail = Array(bytes.suffix(3))
        }
    }

    private func arm(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension FirstHeadTimeoutHandler: Sendable {}
