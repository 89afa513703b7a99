import FileDownload
import Foundation
import Hummingbird

/// One client's server-sent event stream (`GET /v1/events`): the journal from a cursor, then
/// live, as `text/event-stream`.
///
/// The stream opens with `id: <cursor>`, `event: ready`, `data: {"lastEventSequence": <cursor>}`:
/// the sequence number it goes on after (the one asked for, or the journal's last when the client
/// asked for the present), so a client that reconnects before any event came still sends a
/// `Last-Event-ID` and misses nothing journalled meanwhile (as by a restart's reconciliation).
/// Journalled events are written as `id: <sequence>`, `event: download`, `data: <JSON event>`;
/// progress (when asked for; the newest of each download, at most every
/// ``AgentEventLog/liveInterval`` unless a journalled event comes sooner) as `event: progress` without an id, so that a reconnecting client's
/// `Last-Event-ID` stays the last journalled event it got. When entries after the cursor were
/// pruned (or the cursor is beyond the journal, as after the store was replaced) a `event: gap`
/// with `data: {"resumesAt": N}` comes first: the client should list the downloads again. A
/// comment line (`: keep-alive`) is written when there was nothing to send for
/// ``keepAliveInterval``, so a client that went away is noticed within that time and its stream
/// ends; a stream costs nothing else.
struct EventStream: Sendable {
    static let keepAliveInterval: Duration = .seconds(15)
    static let pageSize = 500

    let log: AgentEventLog
    let cursor: Int64
    let includesProgress: Bool

    func write(to writer: inout any ResponseBodyWriter) async throws {
        // A comment and `ready` first, so the client sees the stream at once and holds a cursor
        // even when it asked for the present and no event comes before a reconnect. Written before
        // the stream is counted (health's `eventStreams`): once it is counted, the client has its
        // cursor on the way. Nothing is missed meanwhile: entries are read after `cursor`.
        try await writer.write(ByteBuffer(string: ": fdl agent event stream\n\n"
            + "id: \(cursor)\nevent: ready\ndata: {\"lastEventSequence\":\(cursor)}\n\n"))
        let (token, bell) = await log.subscribe()
        let ticker = Task { [log] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.keepAliveInterval)
                await log.ringOne(token)
            }
        }
        do {
            try await stream(to: &writer, bell: bell)
            ticker.cancel()
            await log.unsubscribe(token)
        } catch {
            ticker.cancel()
            await log.unsubscribe(token)
            throw error
        }
        try await writer.finish(nil)
    }

    /// Writes what is new at each wake. The frames come encoded from the log, once for all
    /// streams (a live event at the first look of any); a stream only joins them.
    private func stream(to writer: inout any ResponseBodyWriter, bell: AsyncStream<Void>) async throws {
        var cursor = self.cursor
        var liveMark: UInt64 = 0
        var bells = bell.makeAsyncIterator()
        var lastWrite = ContinuousClock.now - Self.keepAliveInterval
        while true {
            var text = ""
            while true {
                let page = try await log.entries(after: cursor, limit: Self.pageSize)
                if let resumesAt = page.gapResumesAt {
                    text += "event: gap\ndata: {\"resumesAt\":\(resumesAt)}\n\n"
                    cursor = resumesAt - 1
                    continue
                }
                for entry in page.entries {
                    text += entry.frame
                    cursor = entry.sequence
                }
                if page.entries.count < Self.pageSize { break }
                try await writer.write(ByteBuffer(string: text))
                lastWrite = .now
                text = ""
            }
            if includesProgress {
                let (frames, mark) = await log.live(after: liveMark)
                liveMark = mark
                for frame in frames { text += frame }
            }
            if !text.isEmpty || ContinuousClock.now - lastWrite >= Self.keepAliveInterval {
                try await writer.write(ByteBuffer(string: text.isEmpty ? ": keep-alive\n\n" : text))
                lastWrite = .now
            }
            guard await bells.next() != nil else { return }
        }
    }
}
