import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One POST of a webhook, on SwiftNIO's HTTP/1 client codec: a connection per call, closed when
/// the answer has been read. Every wait is bounded: connecting by `connectTimeout`, the whole call
/// (connect, send, the whole answer) by `timeout`, after which the connection is closed; a
/// cancelled task closes it too.
enum WebhookCall {
    typealias Channel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    /// Why a call got no answer.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// POSTs `body` to `url` with `headers` and returns the answer's status (its body is read and
    /// dropped).
    static func post(to url: URL, body: Data, headers: [(String, String)], connectTimeout: Duration,
                     timeout: Duration) async throws -> Int {
        guard let host = url.host, !host.isEmpty else { throw Failure(description: "the webhook URL has no host") }
        let port = url.port ?? 80
        var target = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        let started = ContinuousClock.now
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeAmount(min(connectTimeout, timeout)))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try Channel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw Failure(description: "cannot connect to \(host):\(port): \(error)")
        }
        let expired = Mutex(false)
        let remaining = timeout - (ContinuousClock.now - started)
        let deadline = channel.channel.eventLoop.scheduleTask(in: timeAmount(max(remaining, .zero))) {
            expired.withLock { $0 = true }
            channel.channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: target)
        head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        head.headers.add(name: "User-Agent", value: "fdl-agent")
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        do {
            return try await withTaskCancellationHandler {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil)])
                    var status: Int?
                    for try await part in inbound {
                        switch part {
                        case .head(let answer): status = Int(answer.status.code)
                        case .body: continue
                        case .end:
                            if let status { return status }
                        }
                    }
                    throw Failure(description: "the server closed the connection before it answered")
                }
            } onCancel: {
                channel.channel.close(promise: nil)
            }
        } catch let error as Failure {
            throw expired.withLock({ $0 }) ? Failure(description: "no whole answer within \(timeout)") : error
        } catch {
            if expired.withLock({ $0 }) { throw Failure(description: "no whole answer within \(timeout)") }
            throw Failure(description: "the call broke: \(error)")
        }
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
