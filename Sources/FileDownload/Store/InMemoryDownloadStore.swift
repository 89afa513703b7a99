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
        records.values.sorted { $0.isListed(before: $1) }
    }

    public func save(_ record: DownloadRecord) {
        saveCount += 1
        records[record.id] = record
    }

    public func checkpoint(id: String, bytes: Int64, validator: Validator?) {
        checkpointCount += 1
        records[id]?.checkpoint(bytes: bytes, validator: validator)
    }

    public func remove(id: String) {
        records[id] = nil
    }

    /// The record for `id`, if any.
    public func record(for id: String) -> DownloadRecord? { records[id] }
}
