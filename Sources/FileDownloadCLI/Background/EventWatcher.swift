import FileDownload
import FileDownloadAgentClient
import Foundation

/// What `fdl watch` does: lists the downloads of an agent (or a running `fdl get`), prints the
/// finished ones among those watched, then follows the event stream from the sequence number the
/// agent had before the list (so nothing between the two is missed), until every watched download
/// is finished.
struct EventWatcher {
    /// What the watch reads: the stream's events, or why it ends.
    private enum Item: Sendable {
        case event(AgentEvent)
        case failed(any Error)
        case serverGone
    }

    let client: DownloadAgentClient
    /// The downloads to watch; empty: every one not finished at the start.
    let ids: [String]
    let printer: EventPrinter
    /// Whether the watch ends when the server goes away (a `fdl get` that ended), rather than
    /// waiting for it to come back (an agent restarted by systemd).
    let endsWithServer: Bool
    /// The final events of the finished downloads as stored, read when the server went away (a
    /// `fdl get` that ended as its last download finished, before the stream delivered it).
    var storedFinals: (@Sendable () async throws -> [String: DownloadEvent])? = nil

    /// Watches and returns the exit status: success when every watched download completed,
    /// failure when one failed, stopped when one was cancelled.
    ///
    /// - Throws: ``DownloadAgentClientError`` when the server does not answer (or refuses);
    ///   ``CLIError`` (usage) for an id the server does not know.
    func run() async throws -> ExitStatus {
        let start = try await client.status()
        // Only what is watched is read: the named downloads one by one, else the unfinished ones
        // (a server holding a million finished downloads sends none of them).
        var known: [String: DownloadInfo] = [:]
        for id in ids where known[id] == nil {
            guard let info = try await client.info(of: id) else {
                let some = try await client.page(limit: 10).downloads.map(\.id)
                throw CLIError(.usage, "no download has the id '\(id)' there (known: \(some.joined(separator: ", ")))")
            }
            known[id] = info
        }
        let watched = ids.isEmpty
            ? Set(try await client.downloads(states: Set(DownloadState.allCases).subtracting(Self.ended)).map(\.id))
            : Set(ids)
        var finals: [String: DownloadState] = [:]
        for id in ids where Self.ended.contains(known[id]!.state) {
            let info = known[id]!
            finals[id] = info.state
            printer.print(Self.finalEvent(of: info), checks: info.checks)
        }
        guard !watched.isEmpty else {
            printer.log("nothing to watch: every download there is finished (`fdl list` shows them)")
            return .success
        }
        if watched.allSatisfy({ finals[$0] != nil }) { return Self.status(finals) }
        printer.log("watching \(watched.filter { finals[$0] == nil }.sorted().joined(separator: ", "))")
        let (items, feed) = AsyncStream<Item>.makeStream()
        let follower = Task { [client] in
            do {
                for try await event in client.events(since: start.lastEventSequence) { feed.yield(.event(event)) }
            } catch {
                feed.yield(.failed(error))
            }
        }
        let checker = !endsWithServer ? nil : Task { [client] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                do {
                    _ = try await client.status()
                } catch let error as DownloadAgentClientError where error.status == 0 && error.code != .noAnswer {
                    feed.yield(.serverGone)
                    return
                } catch {}  // no answer within the client's bound (a stopped fdl get): ask again
            }
        }
        defer {
            follower.cancel()
            checker?.cancel()
        }
        for await item in items {
            switch item {
            case .failed(let error):
                throw error
            case .serverGone:
                let stored = try await storedFinals?() ?? [:]
                for id in watched.sorted() where finals[id] == nil {
                    guard let event = stored[id] else { continue }
                    printer.print(event)
                    finals[id] = Self.state(of: event)
                }
                guard watched.allSatisfy({ finals[$0] != nil }) else {
                    throw CLIError(.failure, "the fdl that ran the downloads ended before they finished")
                }
            case .event(let item):
                guard let id = item.event.id, watched.contains(id), finals[id] == nil else { continue }
                // The stream's paused event has no resume data: the bytes are the downloader's.
                var pausedAt: Int64?
                if case .paused(_, nil) = item.event { pausedAt = try? await client.info(of: id)?.progress.receivedBytes }
                printer.print(item.event, pausedAt: pausedAt)
                finals[id] = Self.state(of: item.event)
            }
            if watched.allSatisfy({ finals[$0] != nil }) { break }
        }
        return Self.status(finals)
    }

    /// The event that reports a finished download's state.
    static func finalEvent(of info: DownloadInfo) -> DownloadEvent {
        switch info.state {
        case .completed: .completed(id: info.id, file: info.destination)
        case .cancelled: .cancelled(id: info.id)
        default: .failed(id: info.id, error: DownloadError(info.lastErrorCode ?? .transport, info.lastError ?? "the download failed",
                                                           isRetryable: false), resumeData: nil)
        }
    }

    /// The states a watch ends with: a download in one of them at the start is reported at once
    /// (a failed one sends no more events unless someone resumes it).
    static let ended: Set<DownloadState> = [.completed, .failed, .cancelled]

    /// The final state an event announces, if it announces one.
    static func state(of event: DownloadEvent) -> DownloadState? {
        switch event {
        case .completed: .completed
        case .failed: .failed
        case .cancelled: .cancelled
        case .removed: .cancelled  // forgotten before it finished: it never will (exit: stopped)
        default: nil
        }
    }

    static func status(_ finals: [String: DownloadState]) -> ExitStatus {
        if finals.values.contains(.failed) { return .failure }
        if finals.values.contains(.cancelled) { return .stopped }
        return .success
    }
}
