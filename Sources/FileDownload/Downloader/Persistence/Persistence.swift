import Logging

/// The persistence part of the ``Downloader``: it owns the ``Journal`` (the one ordered pipeline
/// of store writes and the events they justify) and the store, and says what is written when.
///
/// Writes are posted, never awaited: a save (``save(_:flush:events:)``) is stored before its
/// events are published; saves that queue up together reach the store as one
/// ``DownloadStore/saveAll(_:)``; a checkpoint flushes the staging file before it stores the
/// bytes; a removal (``remove(_:)``) reaches the store before ``DownloadEvent/removed(id:)`` is
/// published. Reads of a paging store wait for the writes posted before them when memory may
/// be ahead of the store (``unfinishedOwner(destination:partPath:)`` always,
/// ``record(_:afterWrites:)`` when asked; before ``nextWaiting(limit:)`` the caller drains), so
/// that the store answers as memory would.
///
/// It holds no download: the actor hands it values and carries out what the restore rules
/// (``RestoreRules``) decide. Without a store, only the events go through the journal.
struct Persistence: Sendable {
    /// The store, if any.
    let store: (any DownloadStore)?
    /// The pipeline of writes and events.
    let journal: Journal
    /// Where a read that is not fatal reports its failure.
    let logger: Logger

    /// A part writing to `store` (none: events only) and publishing through `hub`.
    init(store: (any DownloadStore)?, hub: EventHub, logger: Logger) {
        self.store = store
        self.journal = Journal(store: store, hub: hub, logger: logger)
        self.logger = logger
    }

    /// Whether downloads are stored.
    var hasStore: Bool { store != nil }

    /// Whether the store lets waiting downloads stay there (``DownloadStore/pagesWaitingDownloads``).
    var pagesWaiting: Bool { store?.pagesWaitingDownloads ?? false }

    // MARK: writes, in order

    /// Stores `e` (after flushing `flush`, if any) and publishes `events` after it, in order;
    /// without a store, publishes the events. Returns whether `e` is stored.
    @discardableResult
    func save(_ e: DownloadEntry, flush: TransferSink?, events: [DownloadEvent]) -> Bool {
        if store != nil {
            journal.post(.save(e.record(), flush: flush, events: events))
            return true
        }
        if !events.isEmpty { journal.post(.publish(events)) }
        return false
    }

    /// Flushes `sink`'s file, then stores its length (or, with `segments`, those segments) as the
    /// checkpoint of `id`. Nothing without a store.
    func checkpoint(_ id: String, sink: TransferSink, segments: [SegmentCheckpoint]?, validator: Validator?) {
        guard store != nil else { return }
        if let segments {
            journal.post(.checkpointSegments(id: id, sink: sink, segments: segments, validator: validator))
        } else {
            journal.post(.checkpoint(id: id, sink: sink, validator: validator))
        }
    }

    /// Forgets `id` in the store, then publishes ``DownloadEvent/removed(id:)``: a reader that
    /// sees the event finds no record. (A process that dies between the two has forgotten the
    /// download without announcing it; an agent's event log learns of it only from the store.)
    func remove(_ id: String) {
        journal.post(.remove(id: id))
        journal.post(.publish([.removed(id: id)]))
    }

    /// Remembers `count` connections for `origin` in the store, after every write posted before.
    func rememberConnections(_ count: Int, forOrigin origin: String) {
        guard hasStore else { return }
        journal.post(.rememberConnections(origin: origin, count: count))
    }

    /// Reads the connection counts the store remembers per origin; `[:]` without a store or when
    /// it cannot answer (a warning is logged; the origins then start afresh).
    func rememberedConnections() async -> [String: Int] {
        guard let store else { return [:] }
        do {
            return try await store.rememberedConnections()
        } catch {
            logger.warning("the store could not read the remembered connections; every host starts afresh", metadata: ["error": "\(error)"])
            return [:]
        }
    }

    /// Publishes `events` after every write posted before.
    func publish(_ events: [DownloadEvent]) {
        journal.post(.publish(events))
    }

    /// Runs `work` once every write and event posted before is done.
    func afterWrites(_ work: @escaping @Sendable () -> Void) {
        journal.post(.perform(work))
    }

    /// Returns once every write and event posted before is done.
    func drain() async {
        await journal.drain()
    }

    /// Does what was posted, then takes no more.
    func finish() async {
        await journal.finish()
    }

    /// Whether the store's record of waiting download `e` holds all of it, so that memory may
    /// forget it: nothing of it lives only in memory (secrets, a mirror being tried, an expiring
    /// URL, a `Progress`, retries counted). The caller also asks whether anyone awaits its outcome.
    static func storeHoldsAll(of e: DownloadEntry) -> Bool {
        e.nativeProgress == nil && e.urlExpiry == nil && e.options.urlExpiresAt == nil && e.urlIndex == 0
            && e.secretsOrigin == nil && e.retriesUsed == 0 && e.url.user == nil && e.url.password == nil
            && e.options == e.options.withoutSecrets
    }

    // MARK: reads

    /// What ``Downloader/restore()`` reads, all before anything changes.
    struct Stored {
        /// The records to restore (with a paging store, neither the waiting nor the finished ones).
        var records: [DownloadRecord] = []
        /// The staging files of the waiting downloads left in a paging store.
        var waitingPartPaths: Set<String> = []
        /// The largest queue order a paging store holds.
        var lastQueueOrder: Int64?
    }

    /// Reads what ``Downloader/restore()`` needs: every record, or with a paging store those
    /// neither waiting nor finished, the waiting ones' staging files and the last queue order.
    ///
    /// - Throws: the store's error; nothing was changed.
    func loadForRestore() async throws -> Stored {
        guard let store else { return Stored() }
        guard store.pagesWaitingDownloads else { return Stored(records: try await store.loadAll()) }
        let records = try await store.loadAll(excluding: [.waiting, .completed, .cancelled])
        return Stored(records: records, waitingPartPaths: try await store.waitingPartPaths(),
                      lastQueueOrder: try await store.lastQueueOrder())
    }

    /// The next `limit` waiting downloads in the store (priority, then queue order), as it holds
    /// them now (the caller drains first when its writes must have landed).
    ///
    /// - Throws: the store's error.
    func nextWaiting(limit: Int) async throws -> [DownloadRecord] {
        try await store?.nextWaiting(limit: limit) ?? []
    }

    /// The stored record of `id`, read after the writes posted before when `afterWrites`.
    ///
    /// - Throws: ``DownloadError/Code/store`` when the store cannot be read.
    func record(_ id: String, afterWrites: Bool) async throws -> DownloadRecord? {
        guard let store else { return nil }
        if afterWrites { await journal.drain() }
        return try await Self.readingStore("download '\(id)'") { try await store.record(id: id) }
    }

    /// The unfinished stored download whose destination or staging file is `destination` or
    /// `partPath`, read after every write posted before.
    ///
    /// - Throws: ``DownloadError/Code/store`` when the store cannot be read.
    func unfinishedOwner(destination: String, partPath: String) async throws -> String? {
        guard let store else { return nil }
        await journal.drain()
        return try await Self.readingStore("the downloads") {
            try await store.unfinishedOwner(destination: destination, partPath: partPath)
        }
    }

    /// The answer of `read`; an error of the store becomes ``DownloadError/Code/store`` naming `what`.
    static func readingStore<T>(_ what: String, _ read: () async throws -> T) async throws -> T {
        do {
            return try await read()
        } catch let error as DownloadError where error.code == .store {
            throw error
        } catch {
            throw DownloadError(.store, "the store could not read \(what): \(error)")
        }
    }
}
