import Foundation

/// A ``DownloadStore`` that keeps records in memory: for tests, and for downloaders that need no
/// crash recovery. Counts its writes and full loads so tests can assert how often the downloader
/// writes and reads.
///
/// By default it does not page (``pagesWaitingDownloads`` is `false`): a downloader keeps every
/// download in memory, as it does without a store. `init(records:pagesWaitingDownloads: true)`
/// lets the downloader leave waiting downloads here and page them in (what a test of paging
/// needs); each query then filters every record, which is fine for tests.
public actor InMemoryDownloadStore: DownloadStore {
    private var records: [String: DownloadRecord] = [:]
    /// The connection counts remembered per origin (``rememberConnections(_:forOrigin:)``).
    public private(set) var connectionsByOrigin: [String: Int] = [:]
    /// Calls of ``save(_:)`` so far.
    public private(set) var saveCount = 0
    /// Calls of ``checkpoint(id:bytes:validator:)`` and ``checkpoint(id:segments:validator:)`` so far.
    public private(set) var checkpointCount = 0
    /// Calls of ``loadAll()`` so far.
    public private(set) var loadAllCount = 0
    /// Records handed out so far by every read (loads, pages, ``nextWaiting(limit:)``, lookups).
    public private(set) var recordsRead = 0
    /// Whether the downloader may leave waiting downloads in this store.
    public nonisolated let pagesWaitingDownloads: Bool

    public init(records: [DownloadRecord] = [], pagesWaitingDownloads: Bool = false) {
        self.pagesWaitingDownloads = pagesWaitingDownloads
        for r in records { self.records[r.id] = r }
    }

    /// The connection counts remembered per origin.
    public func rememberedConnections() async throws -> [String: Int] { connectionsByOrigin }

    /// Remembers `count` for `origin` (in memory only).
    public func rememberConnections(_ count: Int, forOrigin origin: String) async throws {
        connectionsByOrigin[origin] = max(1, count)
    }

    public func loadAll() -> [DownloadRecord] {
        loadAllCount += 1
        return read(records.values.sorted { $0.isListed(before: $1) })
    }

    /// Every record whose state is not in `states`, in queue order (not counted in ``loadAllCount``).
    public func loadAll(excluding states: Set<DownloadState>) -> [DownloadRecord] {
        read(records.values.filter { !states.contains($0.state) }.sorted { $0.isListed(before: $1) })
    }

    /// Counts `handed` in ``recordsRead`` and returns it.
    private func read(_ handed: [DownloadRecord]) -> [DownloadRecord] {
        recordsRead += handed.count
        return handed
    }

    public func save(_ record: DownloadRecord) {
        saveCount += 1
        records[record.id] = record
    }

    public func checkpoint(id: String, bytes: Int64, validator: Validator?) {
        checkpointCount += 1
        records[id]?.checkpoint(bytes: bytes, validator: validator)
    }

    public func checkpoint(id: String, segments: [SegmentCheckpoint], validator: Validator?) async {
        checkpointCount += 1
        records[id]?.checkpoint(segments: segments, validator: validator)
    }

    public func remove(id: String) {
        records[id] = nil
    }

    /// The record for `id`, if any.
    public func record(for id: String) -> DownloadRecord? { records[id] }

    /// The record of `id`, if any (counted in ``recordsRead``); throws while ``failsReads``.
    public func record(id: String) throws -> DownloadRecord? {
        try checkReadable()
        return read(records[id].map { [$0] } ?? []).first
    }

    /// Whether ``record(id:)``, ``countsByState()``, ``page(in:after:limit:)`` and
    /// ``unfinishedOwner(destination:partPath:)`` throw `DownloadError(.store, …)`, as a store
    /// that cannot be read does (for tests of the downloader's handling of it).
    public private(set) var failsReads = false

    /// Sets ``failsReads``.
    public func setFailsReads(_ fails: Bool) { failsReads = fails }

    private func checkReadable() throws {
        if failsReads { throw DownloadError(.store, "the in-memory store was told to fail reads") }
    }

    /// The id of an unfinished record with `destination` or `partPath` as its destination or
    /// staging path; throws while ``failsReads``.
    public func unfinishedOwner(destination: String, partPath: String) throws -> String? {
        try checkReadable()
        return records.values.first { $0.writesUnfinished(to: [destination, partPath]) }?.id
    }

    /// Up to `limit` waiting records, sorted as they run.
    public func nextWaiting(limit: Int) -> [DownloadRecord] {
        read(Array(records.values.filter { $0.state == .waiting }.sorted { $0.runs(before: $1) }.prefix(max(0, limit))))
    }

    /// How many records are in each state.
    public func countsByState() throws -> [DownloadState: Int] {
        try checkReadable()
        var counts: [DownloadState: Int] = [:]
        for record in records.values { counts[record.state, default: 0] += 1 }
        return counts
    }

    /// Up to `limit` records after queue position `position` in one of `states`, in queue order.
    public func page(in states: Set<DownloadState>?, after position: Int64?, limit: Int) throws -> [DownloadRecord] {
        try checkReadable()
        let matching = records.values.filter { record in
            (position.map { record.queueOrder > $0 } ?? true) && (states?.contains(record.state) ?? true)
        }
        return read(Array(matching.sorted { $0.isListed(before: $1) }.prefix(max(0, limit))))
    }

    /// The largest queue order stored.
    public func lastQueueOrder() -> Int64? { records.values.map(\.queueOrder).max() }

    /// The staging paths of the waiting records with bytes to continue from.
    public func waitingPartPaths() -> Set<String> {
        Set(records.values.filter { $0.state == .waiting && $0.hasBytesToContinue }.map(\.partPath))
    }
}
