import Foundation

/// A ``DownloadStore`` that keeps records in memory: for tests, and for downloaders that need no
/// crash recovery. Counts its writes so tests can assert how often the downloader writes.
public actor InMemoryDownloadStore: DownloadStore {
    private var records: [String: DownloadRecord] = [:]
    /// Calls of ``save(_:)`` so far.
    public private(set) var saveCount = 0
    /// Calls of ``checkpoint(id:bytes:validator:)`` so far.
    public private(set) var checkpointCount = 0

    public init(records: [DownloadRecord] = []) {
        for r in records { self.records[r.id] = r }
    }

    public func loadAll() -> [DownloadRecord] {
        records.values.sorted { ($0.queueOrder, $0.id) < ($1.queueOrder, $1.id) }
    }

    public func save(_ record: DownloadRecord) {
        saveCount += 1
        records[record.id] = record
    }

    public func checkpoint(id: String, bytes: Int64, validator: Validator?) {
        checkpointCount += 1
        guard var r = records[id] else { return }
        r.checkpointedBytes = bytes
        r.validator = validator
        r.updatedAt = Date()
        records[id] = r
    }

    public func remove(id: String) {
        records[id] = nil
    }

    /// The record for `id`, if any.
    public func record(for id: String) -> DownloadRecord? { records[id] }
}
