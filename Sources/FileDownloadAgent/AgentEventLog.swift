import FileDownload
import FileDownloadSQLite
import Foundation

/// The agent's events: the journalled ones with their sequence numbers (in the store, and the most
/// recent in memory), the latest progress of each download (live only, coalesced), and the
/// subscribers (event streams) to wake when something new is there.
///
/// **What is journalled**: every event about a download's life — `stateChanged`, `restarted`,
/// `resumed`, `paused`, `interrupted`, `completed`, `failed`, `cancelled`, `removed` (the
/// download was forgotten: what the journal announced of it is forgotten too). **Not journalled**:
/// `progress`, `totalProgress` and `activityCountChanged`; a subscriber gets the latest of each
/// when it looks (so a slow subscriber skips intermediate values, never a journalled event).
///
/// **Never announced twice**: the journal remembers the last state it announced per download
/// (in the store, in the same transaction as the entry; looked up for the downloads of each batch,
/// so memory does not grow with the downloads the store holds). A `stateChanged` to that same
/// state is dropped, with the event that describes it. After a restart, ``reconcile(with:)``
/// announces the states that the journal missed (the agent was killed after the store saved a
/// change and before the journal appended its event), a page of ``unannounced(after:)`` at a time.
actor AgentEventLog {
    /// One journalled event, as every event stream sends it: `id: N`, `event: download`,
    /// `data: <JSON>` (encoded once, shared by every stream).
    struct Entry: Sendable {
        var sequence: Int64
        /// The event's JSON, as journalled.
        var json: Data
        var frame: String

        init(sequence: Int64, json: Data) {
            self.sequence = sequence
            self.json = json
            self.frame = "id: \(sequence)\nevent: download\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
        }

        /// The event, decoded from its JSON (`nil` if it does not decode).
        var event: DownloadEvent? { try? JSONDecoder().decode(DownloadEvent.self, from: json) }
    }

    /// The newest live (not journalled) event of one kind, and its frame once a subscriber looked
    /// (`nil` then: it does not encode).
    struct LiveEvent: Sendable {
        var version: UInt64
        var event: DownloadEvent
        var frame: String? = nil
        var encoded = false
    }

    /// How often, at most, subscribers are woken for live events alone (progress); journalled
    /// events wake them at once. A stream then sends the newest progress of each download, so a
    /// client gets progress at this rate however many downloads run and however many clients
    /// listen.
    static let liveInterval: Duration = .milliseconds(500)

    /// What a subscriber gets from one look: entries after its cursor, and whether entries it
    /// asked for were pruned (or the cursor is beyond the journal's end: a different journal).
    struct Page: Sendable {
        var entries: [Entry]
        /// Set when entries after the cursor are missing: the oldest entry kept, or the last
        /// sequence number + 1.
        var gapResumesAt: Int64?
    }

    private let store: SQLiteDownloadStore
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    /// The most recent entries, oldest first (at most ``recentLimit``).
    private var recent: [Entry] = []
    private let recentLimit = 4096
    private(set) var lastSequence: Int64
    private var oldestKept: Int64?
    /// How many stored downloads one page of ``unannounced(after:)`` looks at.
    private let reconcilePage: Int
    /// When the log was opened: what the store saved since is this process's, announced through
    /// ``record(_:)``; ``unannounced(after:)`` looks only at what was saved before.
    private let openedAt = Date()
    /// Events whose append failed: journalled first by the next ``record(_:)`` or
    /// ``reconcile(with:)``, so a failed write delays them and loses none.
    private var unjournalled: [DownloadEvent] = []
    /// Downloads whose last `stateChanged` was dropped as a repeat: the event describing it is
    /// dropped too.
    private var suppressed: Set<String> = []

    /// The newest live event of each kind, encoded into its `event: progress` frame only when a
    /// subscriber first looks (``live(after:)``), and kept so that the other subscribers get the
    /// same frame: most are replaced before anyone looks, and `fdl get` records every one
    /// (encoding each was 5 % of its CPU time on 2,000 small files).
    private var progress: [String: LiveEvent] = [:]
    private var total: LiveEvent?
    private var activity: LiveEvent?
    private var version: UInt64 = 0
    /// When subscribers were last woken, and whether a wake for live events is scheduled.
    private var lastRing = ContinuousClock.now
    private var liveRingScheduled = false

    private var bells: [UInt64: AsyncStream<Void>.Continuation] = [:]
    private var nextBell: UInt64 = 0
    private var isClosed = false

    /// Opens the log of `store`; ``unannounced(after:)`` looks at `reconcilePage` stored
    /// downloads a call.
    init(store: SQLiteDownloadStore, reconcilePage: Int = 10_000) async throws {
        self.store = store
        self.reconcilePage = reconcilePage
        let bounds = try await store.journalBounds()
        self.lastSequence = bounds.last
        self.oldestKept = bounds.oldest
    }

    // MARK: recording

    /// Journals the events that are journalled (in one transaction), keeps the latest live ones,
    /// and wakes the subscribers.
    func record(_ events: [DownloadEvent]) async throws {
        var toJournal: [DownloadEvent] = []
        var intended = await intendedStates(of: events.compactMap { event in
            if case .stateChanged(let id, _) = event { id } else { nil }
        })
        var liveChanged = false
        var removed: Set<String> = []
        for event in events {
            switch event {
            case .progress(let id, _):
                version += 1
                progress[id] = LiveEvent(version: version, event: event)
                liveChanged = true
            case .totalProgress:
                version += 1
                total = LiveEvent(version: version, event: event)
                liveChanged = true
            case .activityCountChanged:
                version += 1
                activity = LiveEvent(version: version, event: event)
                liveChanged = true
            case .stateChanged(let id, let state):
                if intended[id] == state {
                    suppressed.insert(id)
                } else {
                    suppressed.remove(id)
                    intended[id] = state
                    toJournal.append(event)
                }
                if state.isTerminal { progress[id] = nil }
            case .removed(let id):
                // Journalled; what the journal announced of the id is forgotten once it is.
                suppressed.remove(id)
                progress[id] = nil
                intended[id] = nil
                removed.insert(id)
                toJournal.append(event)
            default:
                if let id = event.id, suppressed.remove(id) != nil { continue }
                toJournal.append(event)
            }
        }
        let journalled = lastSequence
        try await journal(toJournal)
        // A removed id announced again in this batch (added anew) keeps that state.
        for id in removed where intended[id] == nil { try await store.forgetJournalledState(of: id) }
        if lastSequence != journalled {
            ring()
        } else if liveChanged {
            ringForLive()
        }
    }

    /// The `event: progress` frame of a live event (`nil` if it does not encode: the subscribers
    /// then miss that one value of a coalesced stream, never a journalled event).
    private func liveFrame(_ event: DownloadEvent) -> String? {
        guard let json = try? encoder.encode(event) else { return nil }
        return "event: progress\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
    }

    /// `live`'s frame, encoded at the first look and kept in it.
    private func frame(of live: inout LiveEvent) -> String? {
        if !live.encoded {
            live.frame = liveFrame(live.event)
            live.encoded = true
        }
        return live.frame
    }

    /// Wakes the subscribers for live events: at once when the last wake is ``liveInterval`` ago,
    /// else once when it will be (later live events join that wake).
    private func ringForLive() {
        guard !liveRingScheduled else { return }
        let due = lastRing + Self.liveInterval
        if ContinuousClock.now >= due {
            ring()
            return
        }
        liveRingScheduled = true
        Task { [weak self] in
            try? await Task.sleep(until: due)
            await self?.ringScheduled()
        }
    }

    private func ringScheduled() {
        liveRingScheduled = false
        ring()
    }

    /// Announces, for each download, a state the journal has not announced: after a restart,
    /// the changes the store saved and the journal missed. Only states that stay as they are
    /// until a client acts (completed, cancelled, failed, paused) are announced with the event
    /// that describes them; a download the journal never announced gets its state.
    func reconcile(with downloads: [DownloadInfo]) async throws {
        var events: [DownloadEvent] = []
        let intended = await intendedStates(of: downloads.map(\.id))
        for info in downloads {
            let known = intended[info.id]
            guard known != info.state else { continue }
            switch info.state {
            case .completed:
                events += [.stateChanged(id: info.id, state: .completed), .completed(id: info.id, file: info.destination)]
            case .cancelled:
                events += [.stateChanged(id: info.id, state: .cancelled), .cancelled(id: info.id)]
            case .paused:
                events += [.stateChanged(id: info.id, state: .paused), .paused(id: info.id, resumeData: nil)]
            case .failed:
                let error = DownloadError(info.lastErrorCode ?? .transport, info.lastError ?? "the download failed",
                                          isRetryable: false)
                events += [.stateChanged(id: info.id, state: .failed), .failed(id: info.id, error: error, resumeData: nil)]
            case .notStarted, .waiting, .downloading, .interrupted:
                if known == nil { events.append(.stateChanged(id: info.id, state: info.state)) }
            }
        }
        try await journal(events)
        ring()
    }

    /// A page of the downloads saved before the log was opened whose stored state the journal has
    /// not announced (see `SQLiteDownloadStore.unannounced(after:savedBefore:limit:)`): what
    /// ``reconcile(with:)`` is to look at.
    func unannounced(after id: String?) async throws -> SQLiteDownloadStore.UnannouncedPage {
        try await store.unannounced(after: id, savedBefore: openedAt, limit: reconcilePage)
    }

    /// The states of `ids` announced once the events still to be journalled are. When the store
    /// cannot be read, only those of the events still to be journalled: a repeat may then be
    /// journalled, nothing is dropped.
    private func intendedStates(of ids: [String]) async -> [String: DownloadState] {
        var states = ids.isEmpty ? [:] : (try? await store.journalledStates(of: ids)) ?? [:]
        for case .stateChanged(let id, let state) in unjournalled { states[id] = state }
        return states
    }

    /// Forgets what the journal announced about `id` (the download was forgotten; its id may be
    /// used again).
    func forget(_ id: String) async throws {
        suppressed.remove(id)
        progress[id] = nil
        try await store.forgetJournalledState(of: id)
    }

    /// Appends the events left by a failed append, then `newEvents`, in one transaction; on
    /// failure keeps them all for the next call and throws.
    private func journal(_ newEvents: [DownloadEvent]) async throws {
        let events = unjournalled + newEvents
        unjournalled = []
        guard !events.isEmpty else { return }
        let sequences: [Int64]
        let rows: [SQLiteDownloadStore.JournalEvent]
        do {
            rows = try events.map { event -> SQLiteDownloadStore.JournalEvent in
                var state: DownloadState?
                if case .stateChanged(_, let s) = event { state = s }
                return SQLiteDownloadStore.JournalEvent(downloadID: event.id, state: state, payload: try encoder.encode(event))
            }
            sequences = try await store.appendToJournal(rows)
        } catch {
            unjournalled = events + unjournalled
            throw error
        }
        for (sequence, row) in zip(sequences, rows) {
            recent.append(Entry(sequence: sequence, json: row.payload))
        }
        if recent.count > recentLimit { recent.removeFirst(recent.count - recentLimit) }
        lastSequence = sequences.last ?? lastSequence
        let capacity = Int64(store.configuration.journalCapacity)
        oldestKept = Swift.max(oldestKept ?? sequences.first ?? 1, lastSequence - capacity + 1)
    }

    // MARK: reading

    /// Up to `limit` entries after `cursor`, from memory when they are recent, else from the store.
    func entries(after cursor: Int64, limit: Int) async throws -> Page {
        if cursor > lastSequence {
            return Page(entries: [], gapResumesAt: lastSequence + 1)
        }
        if let oldestKept, cursor + 1 < oldestKept {
            return Page(entries: [], gapResumesAt: oldestKept)
        }
        if cursor == lastSequence { return Page(entries: []) }
        if let first = recent.first, first.sequence <= cursor + 1 {
            let start = recent.partitioningIndex { $0.sequence > cursor }
            return Page(entries: Array(recent[start..<min(recent.count, start + limit)]))
        }
        let rows = try await store.journal(after: cursor, limit: limit)
        return Page(entries: rows.map { Entry(sequence: $0.sequence, json: $0.payload) })
    }

    /// The frames of the live (not journalled) events newer than `mark`, latest value of each, in
    /// the order they came, and the new mark.
    func live(after mark: UInt64) -> (frames: [String], mark: UInt64) {
        guard version > mark else { return ([], version) }
        var changed: [(version: UInt64, frame: String?)] = []
        // The ids first: a loop over the dictionary itself would copy it at the first frame kept.
        for id in progress.compactMap({ $0.value.version > mark ? $0.key : nil }) {
            changed.append((progress[id]!.version, frame(of: &progress[id]!)))
        }
        if total?.version ?? 0 > mark { changed.append((total!.version, frame(of: &total!))) }
        if activity?.version ?? 0 > mark { changed.append((activity!.version, frame(of: &activity!))) }
        return (changed.sorted { $0.version < $1.version }.compactMap(\.frame), version)
    }

    // MARK: subscribers

    /// A new subscriber: a stream that yields (coalesced) whenever something new is there, and
    /// at least every `keepAlive`; it ends when the log is closed.
    func subscribe() -> (token: UInt64, bell: AsyncStream<Void>) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        if isClosed {
            continuation.finish()
            return (0, stream)
        }
        nextBell += 1
        bells[nextBell] = continuation
        return (nextBell, stream)
    }

    func unsubscribe(_ token: UInt64) {
        bells.removeValue(forKey: token)?.finish()
    }

    /// The number of subscribers (for tests and the agent's log).
    var subscriberCount: Int { bells.count }

    /// Wakes subscriber `token` (its keep-alive timer).
    func ringOne(_ token: UInt64) {
        bells[token]?.yield()
    }

    /// Wakes every subscriber.
    func ring() {
        lastRing = ContinuousClock.now
        for bell in bells.values { bell.yield() }
    }

    /// Ends every subscriber's stream, now and for later subscribers.
    func close() {
        isClosed = true
        for bell in bells.values { bell.finish() }
        bells.removeAll()
    }
}
