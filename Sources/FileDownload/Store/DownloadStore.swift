/// Where a ``Downloader`` keeps its downloads so they outlive the process.
///
/// The downloader calls ``save(_:)`` on every state change, before it reports the change, and
/// ``checkpoint(id:bytes:validator:)`` on a schedule after the bytes are flushed to disk (never on
/// every progress tick). At start, ``Downloader/restore()`` reads ``loadAll()`` and reconciles the
/// records with the files on disk.
///
/// Implementations: `InMemoryDownloadStore` (tests) and `SQLiteDownloadStore` (module
/// `FileDownloadSQLite`). A store must be safe to call from several tasks; a call that returns has
/// made its change durable (as durable as the store promises). Errors are ``DownloadError`` with code
/// ``DownloadError/Code/store``.
public protocol DownloadStore: Sendable {
    /// Every record, in ``DownloadRecord/queueOrder`` order.
    func loadAll() async throws -> [DownloadRecord]
    /// Inserts or replaces the record with the same id.
    func save(_ record: DownloadRecord) async throws
    /// Saves `records` in order, as ``save(_:)`` would one after another; a store that can makes
    /// them one change (all saved, or none when it throws). The downloader hands over the state
    /// changes that queued up together, so that a burst of them costs one round trip to the store.
    func saveAll(_ records: [DownloadRecord]) async throws
    /// Records that `bytes` of download `id` are on disk, belonging to `validator`.
    /// Does nothing for an unknown id.
    func checkpoint(id: String, bytes: Int64, validator: Validator?) async throws
    /// Forgets download `id`. Does nothing for an unknown id.
    func remove(id: String) async throws
}
