import FileDownload
import Foundation
import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The aria2 RPC's WebSocket at `ws://127.0.0.1:PORT/jsonrpc` (HummingbirdWebSocket's upgrade on
/// the TCP listener): calls in text (or binary) messages, answered in text messages, as
/// `POST /jsonrpc` answers them; and aria2's notifications.
///
/// The upgrade request passes the listener's Host and Origin checks (`WebGuardMiddleware`), or
/// is answered 400 and closed. A connection gets notifications only once it has shown the token:
/// by `Authorization: Bearer TOKEN` on its upgrade request, or by a call with the right `token:`
/// parameter on it; from then on, every journalled event of the agent that aria2 would announce
/// is sent, in the journal's order, as `{"jsonrpc": "2.0", "method": NAME, "params": [{"gid":
/// GID}]}` (``notification(for:)``). The connection ends when the client closes it or the agent
/// stops.
struct Aria2WebSocket: Sendable {
    let rpc: Aria2RPC
    let site: WebGuardMiddleware

    /// The TCP listener's server: HTTP/1.1 with this WebSocket upgrade, behind `gate` and the
    /// timeouts of `limits` (the first head's through ``FirstHeadTimeoutHandler``, as the upgrade
    /// reads it before the HTTP handlers are added; a WebSocket is then kept alive by pings).
    func builder(limits: AgentConnectionLimits, gate: ConnectionGate) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    configuration: .init(http1: .init(additionalChannelHandlers: [RequestTimeoutHandler(limits: limits)]),
                                         ws: .init(maxFrameSize: AgentAPI.maxBatchBodySize)),
                    shouldUpgrade: { head, _, logger in await shouldUpgrade(head, logger: logger) }),
                gate: gate, transport: .tcp, firstHeadTimeout: TimeAmount(limits.headerTimeout))
        }
    }

    /// Upgrades a request for `/jsonrpc` that passes the Host and Origin checks. The journal's
    /// position is read before the upgrade is answered, so every event after the client saw the
    /// connection open is announced.
    func shouldUpgrade(_ head: HTTPRequest, logger: Logger) async
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard (head.path ?? "").prefix(while: { $0 != "?" }) == "/jsonrpc" else { return .dontUpgrade }
        do {
            try site.checkSite(head, logger: logger)
        } catch {
            return .dontUpgrade
        }
        let session = Aria2Session(authenticated: site.isAuthorized(head))
        let cursor = await rpc.api.log.lastSequence
        return .upgrade([:]) { inbound, outbound, _ in
            await serve(session, from: cursor, inbound: inbound, outbound: outbound, logger: logger)
        }
    }

    /// How many notifications wait for a client that reads slower than events happen. A client
    /// that lets more wait is disconnected (a client that reads again may reconnect and ask
    /// `aria2.tellStatus`), so a client that never reads holds at most this many.
    static let notificationBacklog = 256

    /// Answers the calls and sends the notifications until the client goes or the agent stops.
    /// The reading task writes each answer itself before it reads the next call, so a client
    /// that does not read its answers stops being read (the socket's backpressure). A second task
    /// writes the notifications from a buffer of at most ``notificationBacklog``; when it would
    /// overflow, the connection is closed. Each message is one frame, so answers and
    /// notifications never interleave within a message.
    private func serve(_ session: Aria2Session, from cursor: Int64, inbound: WebSocketInboundStream,
                       outbound: WebSocketOutboundWriter, logger: Logger) async {
        let (outbox, post) = Self.notificationOutbox(capacity: Self.notificationBacklog)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in outbox {
                    do { try await outbound.write(.text(text)) } catch { return }
                }
            }
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: AgentAPI.maxBatchBodySize) {
                        let body: Data
                        switch message {
                        case .text(let text): body = Data(text.utf8)
                        case .binary(let bytes): body = Data(bytes.readableBytesView)
                        }
                        try await outbound.write(.text(String(decoding: await rpc.answer(body, session: session), as: UTF8.self)))
                    }
                } catch {
                    return
                }
            }
            group.addTask { await notify(session, from: cursor, post: post, logger: logger) }
            _ = await group.next()
            group.cancelAll()
            post.finish()
        }
    }

    /// The buffer of the notifications not yet written: it holds at most `capacity`; a yield that
    /// would exceed it is refused (`.dropped`).
    static func notificationOutbox(capacity: Int)
        -> (stream: AsyncStream<String>, continuation: AsyncStream<String>.Continuation) {
        AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(capacity))
    }

    /// Sends the notification of each journalled event after `cursor`, while the session is
    /// authenticated, until the journal closes (the agent stops) or `post`'s buffer is full (the
    /// client does not read: the connection is then closed).
    private func notify(_ session: Aria2Session, from cursor: Int64, post: AsyncStream<String>.Continuation,
                        logger: Logger) async {
        let log = rpc.api.log
        let (token, bell) = await log.subscribe()
        var cursor = cursor
        reading: for await _ in bell {
            do {
                while !Task.isCancelled {
                    let page = try await log.entries(after: cursor, limit: EventStream.pageSize)
                    if let resumesAt = page.gapResumesAt {
                        cursor = resumesAt - 1
                        continue
                    }
                    for entry in page.entries {
                        cursor = entry.sequence
                        if session.isAuthenticated, let event = entry.event, let text = Self.notification(for: event),
                           case .dropped = post.yield(text) {
                            logger.warning("aria2 WebSocket: the client reads no notifications; closing it",
                                           metadata: ["backlog": "\(Self.notificationBacklog)"])
                            break reading
                        }
                    }
                    if page.entries.count < EventStream.pageSize { break }
                }
            } catch {
                break reading
            }
        }
        await log.unsubscribe(token)
    }

    /// aria2's notification of `event`, or `nil` when aria2 has none for it: a download that
    /// starts or resumes (`downloading`) is `aria2.onDownloadStart`; `paused`
    /// `aria2.onDownloadPause`; `completed` `aria2.onDownloadComplete`; `failed`
    /// `aria2.onDownloadError`; `cancelled` (aria2's `remove`) `aria2.onDownloadStop`.
    static func notification(for event: DownloadEvent) -> String? {
        guard case .stateChanged(let id, let state) = event else { return nil }
        let method: String
        switch state {
        case .downloading: method = "aria2.onDownloadStart"
        case .paused: method = "aria2.onDownloadPause"
        case .completed: method = "aria2.onDownloadComplete"
        case .failed: method = "aria2.onDownloadError"
        case .cancelled: method = "aria2.onDownloadStop"
        case .notStarted, .waiting, .interrupted: return nil
        }
        let message: Aria2JSON = .object(["jsonrpc": "2.0", "method": .string(method),
                                          "params": .array([.object(["gid": .string(Aria2GID.of(id))])])])
        return String(decoding: message.encoded(), as: UTF8.self)
    }
}
