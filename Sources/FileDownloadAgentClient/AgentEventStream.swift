import FileDownload
import Foundation
import NIOCore
import NIOHTTP1

/// The agent's events as an `AsyncSequence` of ``AgentEvent`` (see
/// ``DownloadAgentClient/events(since:includeProgress:)``).
///
/// It keeps the sequence number of the last journalled event it yielded (or, before the first, the
/// one the agent's opening `ready` message names, so "from the present" becomes a fixed place at
/// the first connection) and, when the connection
/// breaks (the agent restarted, say), connects again with `Last-Event-ID` set to it, waiting
/// 0.1 s, then up to 2 s between attempts, for as long as the iterating task runs. So the events
/// it yields are each journalled event once, in order, across reconnects. It ends, throwing, when
/// reconnecting would not help: events missed (`events-missed`), a refusal (4xx), or an event it
/// cannot decode (`bad-response`, as from a newer agent).
public struct AgentEventStream: AsyncSequence, Sendable {
    public typealias Element = AgentEvent

    let connection: AgentConnection
    let since: Int64?
    let includeProgress: Bool

    public func makeAsyncIterator() -> AsyncThrowingStream<AgentEvent, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream<AgentEvent, any Error>.makeStream()
        let task = Task { [self] in
            do {
                try await follow(continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }

    private func follow(_ continuation: AsyncThrowingStream<AgentEvent, any Error>.Continuation) async throws {
        var cursor = since
        var delay: Duration = .milliseconds(100)
        while !Task.isCancelled {
            do {
                try await stream(from: &cursor, continuation) { delay = .milliseconds(100) }
            } catch let error as DownloadAgentClientError
                        where [.eventsMissed, .badResponse].contains(error.code) || (400..<500).contains(error.status) {
                throw error
            } catch {
                // The connection broke or no agent listens: try again.
            }
            if Task.isCancelled { return }
            try? await Task.sleep(for: delay)
            delay = Swift.min(delay * 2, .seconds(2))
        }
    }

    /// One connection: yields its events until it ends; `connected` is called once the agent answered.
    private func stream(from cursor: inout Int64?, _ continuation: AsyncThrowingStream<AgentEvent, any Error>.Continuation,
                        connected: () -> Void) async throws {
        let channel = try await connection.connect()
        var path = "/v1/events"
        if !includeProgress { path += "?progress=false" }
        var headers: [(String, String)] = [("Accept", "text/event-stream")]
        if let cursor { headers.append(("Last-Event-ID", String(cursor))) }
        let decoder = JSONDecoder()
        var newCursor = cursor
        defer { cursor = newCursor }
        try await channel.executeThenClose { inbound, outbound in
            try await connection.send(.GET, path, body: nil, headers: headers, to: outbound)
            var parser = ServerSentEventParser()
            var errorBody = ByteBuffer()
            var status = 0
            for try await part in inbound {
                switch part {
                case .head(let head):
                    status = Int(head.status.code)
                    if status == 200 { connected() }
                case .body(var chunk):
                    guard status == 200 else {
                        errorBody.writeBuffer(&chunk)
                        continue
                    }
                    for message in parser.feed(chunk.readableBytesView) {
                        switch message.event {
                        case "gap":
                            throw DownloadAgentClientError(status: 0, code: .eventsMissed, message:
                                "events after \(newCursor ?? 0) are no longer in the agent's journal (\(message.data)); "
                                + "list the downloads, then follow the events from the present")
                        case "ready":
                            // Where the agent goes on from: the cursor to reconnect with, even
                            // when this stream asked for the present and no event came yet.
                            if let sequence = message.id.flatMap({ Int64($0) }) { newCursor = sequence }
                        case "download", "progress":
                            let event: DownloadEvent
                            do {
                                event = try decoder.decode(DownloadEvent.self, from: Data(message.data.utf8))
                            } catch {
                                // Final: a reconnect would get the same event again, for ever.
                                throw DownloadAgentClientError(status: status, code: .badResponse, message:
                                    "the agent's event \(message.id ?? "(progress)") is not what this client understands: \(error)")
                            }
                            let sequence = message.event == "download" ? message.id.flatMap { Int64($0) } : nil
                            if let sequence { newCursor = sequence }
                            continuation.yield(AgentEvent(sequence: sequence, event: event))
                        default:
                            continue
                        }
                    }
                case .end:
                    if status != 200 { throw DownloadAgentClient.refusal(status, Data(errorBody.readableBytesView)) }
                    return
                }
            }
        }
    }
}
