import FileDownload

/// A `DownloadStore` that hands every call to another store and, after a
/// checkpoint returned (the bytes and the record are durable), reports it: what `fdl get --json`
/// prints as `checkpoint` lines.
struct CheckpointReportingStore: DownloadStore {
    let base: any DownloadStore
    /// Called after each checkpoint the base store took, on the caller's task.
    let onCheckpoint: @Sendable (_ id: String, _ bytes: Int64) -> Void

    func loadAll() async throws -> [DownloadRecord] { try await base.loadAll() }

    func save(_ record: DownloadRecord) async throws { try await base.save(record) }

    func saveAll(_ records: [DownloadRecord]) async throws { try await base.saveAll(records) }

    func checkpoint(id: String, bytes: Int64, validator: Validator?) async throws {
        try await base.checkpoint(id: id, bytes: bytes, validator: validator)
        onCheckpoint(id, bytes)
    }

    func checkpoint(id: String, segments: [SegmentCheckpoint], validator: Validator?) async throws {
        try await base.checkpoint(id: id, segments: segments, validator: validator)
        onCheckpoint(id, segments.contiguousPrefix)
    }

    func remove(id: String) async throws { try await base.remove(id: id) }

    func rememberedConnections() async throws -> [String: Int] { try await base.rememberedConnections() }

    func rememberConnections(_ count: Int, forOrigin origin: String) async throws {
        try await base.rememberConnections(count, forOrigin: origin)
    }
}
