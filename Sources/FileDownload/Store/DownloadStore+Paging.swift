extension DownloadStore {
    /// `false`: the downloader keeps every download in memory.
    public var pagesWaitingDownloads: Bool { false }

    /// ``loadAll()`` without the records in `states`.
    public func loadAll(excluding states: Set<DownloadState>) async throws -> [DownloadRecord] {
        try await loadAll().filter { !states.contains($0.state) }
    }

    /// The waiting records of ``loadAll()``, sorted as they run.
    public func nextWaiting(limit: Int) async throws -> [DownloadRecord] {
        Array(try await loadAll().filter { $0.state == .waiting }.sorted { $0.runs(before: $1) }.prefix(max(0, limit)))
    }

    /// The record of ``loadAll()`` with id `id`.
    public func record(id: String) async throws -> DownloadRecord? {
        try await loadAll().first { $0.id == id }
    }

    /// The states of ``loadAll()``, counted.
    public func countsByState() async throws -> [DownloadState: Int] {
        var counts: [DownloadState: Int] = [:]
        for record in try await loadAll() { counts[record.state, default: 0] += 1 }
        return counts
    }

    /// The matching records of ``loadAll()``.
    public func page(in states: Set<DownloadState>?, after position: Int64?, limit: Int) async throws -> [DownloadRecord] {
        let matching = try await loadAll().filter { record in
            (position.map { record.queueOrder > $0 } ?? true) && (states?.contains(record.state) ?? true)
        }
        return Array(matching.prefix(max(0, limit)))
    }

    /// The largest queue order of ``loadAll()``.
    public func lastQueueOrder() async throws -> Int64? {
        try await loadAll().map(\.queueOrder).max()
    }

    /// The staging paths of the waiting records of ``loadAll()`` with checkpointed bytes.
    public func waitingPartPaths() async throws -> Set<String> {
        Set(try await loadAll().filter { $0.state == .waiting && $0.hasBytesToContinue }.map(\.partPath))
    }

    /// The first record of ``loadAll()`` not completed or cancelled with `destination` or
    /// `partPath` as its destination or staging path.
    public func unfinishedOwner(destination: String, partPath: String) async throws -> String? {
        try await loadAll().first { $0.writesUnfinished(to: [destination, partPath]) }?.id
    }
}

extension DownloadRecord {
    /// Whether this record is not completed or cancelled and one of `paths` is its destination
    /// path or its staging path.
    func writesUnfinished(to paths: [String]) -> Bool {
        !state.isTerminal && (paths.contains(destination.path) || paths.contains(partPath))
    }
}
