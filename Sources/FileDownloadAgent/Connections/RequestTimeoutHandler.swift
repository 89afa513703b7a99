import NIOCore
import NIOHTTPTypes

/// Closes a connection that keeps the agent waiting (see ``AgentConnectionLimits``): no complete
/// request head within the header timeout of the accept, a pause longer than the body timeout
/// inside a request body, or no complete next request head within the idle timeout of the last
/// answer. No timeout runs while answers are owed (a request was read and its answer has not
/// ended: an event stream, a long list).
///
/// It sits after the HTTP decoder, so it sees request parts: a head counts once it is complete,
/// which is what makes a half-sent head wait for the timeout and not restart it with each byte.
final class RequestTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let header: TimeAmount
    private let body: TimeAmount
    private let idle: TimeAmount
    private var timer: Scheduled<Void>?
    /// Request heads read, and answers ended.
    private var requests = 0
    private var answers = 0
    private var readingBody = false

    init(limits: AgentConnectionLimits) {
        header = TimeAmount(limits.headerTimeout)
        body = TimeAmount(limits.bodyTimeout)
        idle = TimeAmount(limits.idleTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(header, context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil, requests == 0 { arm(header, context: context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requests += 1
            readingBody = true
            arm(body, context: context)
        case .body:
            arm(body, context: context)
        case .end:
            readingBody = false
            // An answer may have ended before its body was read (an early 401): then the idle
            // timeout runs from here, or the connection would stay open with no timer at all.
            if answers >= requests { arm(idle, context: context) } else { disarm() }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answers += 1
            if !readingBody, answers >= requests { arm(idle, context: context) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        disarm()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}

@available(*, unavailable)
extension RequestTimeoutHandler: Sendable {}
