import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 exchange with the agent over its Unix domain socket, on SwiftNIO's HTTP/1 codec
/// (no hand-written HTTP parsing): a connection per request, closed when the answer has been read.
struct AgentConnection: Sendable {
    typealias Channel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    let socketPath: String
    /// How long ``exchange(_:_:body:)`` waits for the whole answer once connected (the connect
    /// has its own 5 s bound); `nil`: as long as the agent takes.
    var answerTimeout: Duration? = nil

    /// Sends `method path` with an optional JSON body and returns the status and the whole body.
    ///
    /// - Throws: ``DownloadAgentClientError`` `unreachable` when no agent accepts the connection,
    ///   or when the connection breaks before the answer is complete; `noAnswer` when the answer
    ///   is not complete within ``answerTimeout`` (the connection is then closed).
    func exchange(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> (status: Int, body: Data) {
        let channel = try await connect()
        let deadline = answerTimeout.map { ContinuousClock.now + $0 }
        let timer = answerTimeout.map { timeout in
            channel.channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { channel.channel.close(promise: nil) }
        }
        defer { timer?.cancel() }
        do {
            return try await channel.executeThenClose { inbound, outbound in
                try await send(method, path, body: body, headers: [], to: outbound)
                var status = 0
                var collected = ByteBuffer()
                for try await part in inbound {
                    switch part {
                    case .head(let head): status = Int(head.status.code)
                    case .body(var chunk): collected.writeBuffer(&chunk)
                    case .end: return (status, Data(collected.readableBytesView))
                    }
                }
                throw DownloadAgentClientError(status: 0, code: .unreachable,
                                               message: "the agent at \(socketPath) closed the connection before it answered")
            }
        } catch where deadline.map({ ContinuousClock.now >= $0 }) ?? false {
            throw DownloadAgentClientError(status: 0, code: .noAnswer,
                                           message: "the agent at \(socketPath) did not answer within \(answerTimeout!)")
        } catch let error as DownloadAgentClientError {
            throw error
        } catch {
            throw DownloadAgentClientError(status: 0, code: .unreachable, message: "the connection to the agent at \(socketPath) broke: \(error)")
        }
    }

    /// Opens a connection with the HTTP/1 client codec.
    func connect() async throws -> Channel {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try Channel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw DownloadAgentClientError(status: 0, code: .unreachable,
                                           message: "no download agent accepts connections at \(socketPath) (\(error)); start one with `fdl agent`")
        }
    }

    /// Writes a whole request.
    func send(_ method: HTTPMethod, _ path: String, body: Data?, headers: [(String, String)],
              to outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>) async throws {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: "localhost")
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body {
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.count))
        }
        var parts: [HTTPClientRequestPart] = [.head(head)]
        if let body { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        parts.append(.end(nil))
        // In one write: the agent may answer and close the connection as soon as it has the whole
        // body, before a separate write of the (empty) end would go out. A write that fails all
        // the same is not an error by itself: the answer, if complete, is still read.
        try? await outbound.write(contentsOf: parts)
    }
}
