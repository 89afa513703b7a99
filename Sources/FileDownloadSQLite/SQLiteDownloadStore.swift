public import FileDownload
import Foundation
internal import CSQLite

/// A `DownloadStore` that keeps downloads in an SQLite database file, so that a
/// `Downloader` can restore them after the process died.
///
/// ```swift
/// let store = try await SQLiteDownloadStore(path: appSupport.appending(path: "downloads.sqlite").path)
/// let downloader = Downloader(configuration: config, transports: transports, store: store)
/// try await downloader.restore()
/// ```
///
/// **One row per download**, written by each call in its own transaction: when ``save(_:)``,
/// ``checkpoint(id:bytes:validator:)`` or ``remove(id:)`` returns, the change is in the file as
/// durably as ``Configuration/durability`` promises (by default it survives a power loss). A call
/// that throws changed nothing.
///
/// **Never stored**: passwords in URLs (the download URL and the proxy URL), and the header
/// fields marked sensitive (`Authorization`, `Proxy-Authorization`, `Cookie`). The store strips
/// them itself, even from a record whose fields were edited after it was made.
///
/// **Threads**: the store is an actor whose executor is one dedicated thread. Every SQLite call
/// (and the `fsync` of each commit) runs there, one at a time, on the one connection the store
/// owns; callers on Swift's cooperative pool only await. Any number of tasks may call the store
/// at once; their calls run in the order they reach it.
///
/// **Opening** checks the file before it writes a byte. A file that is not SQLite, a corrupt
/// database, an SQLite database of another application, or a store written by a newer version
/// (a future schema version) is a `DownloadError(.store, …)` saying which, and the file is left
/// untouched. A missing file is created; an older schema is migrated in one transaction.
/// A directory or file the process cannot write to is a `DownloadError(.store, …)` too.
///
/// Other processes may open the same file (SQLite locks it); a call waits up to
/// ``Configuration/busyTimeout`` for their lock. The schema is described in `docs/persistence.md`.
public actor SQLiteDownloadStore: DownloadStore {
    /// The database file.
    public nonisolated let path: String
    /// How the database was opened.
    public nonisolated let configuration: Configuration

    private let executor: SQLiteThreadExecutor
    /// `nil` once closed.
    private var table: SQLiteRecordTable?
    /// The event journal's statements; `nil` once closed.
    private var journalTable: SQLiteJournalTable?

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Opens the store at `path`, creating the file if it does not exist.
    ///
    /// In order: opens the file, checks that it is an empty database or a download store of a
    /// schema version this build knows and that it is not corrupt (reading only), switches it to
    /// WAL mode, sets the durability and busy timeout, and migrates it to the current schema.
    ///
    /// - Throws: `DownloadError(.store, …)` when the file cannot be opened or written, is not
    ///   SQLite, is corrupt, belongs to another application, or comes from a newer version. The
    ///   file is then left as it was.
    public init(path: String, configuration: Configuration = Configuration()) async throws {
        self.path = path
        self.configuration = configuration
        self.executor = SQLiteThreadExecutor(name: "fdl-sqlite")
        self.table = nil
        self.journalTable = nil
        // From here on the initialiser runs on the store's own thread.
        do {
            let table = try Self.open(path: path, configuration: configuration)
            self.journalTable = try SQLiteJournalTable(table.connection)
            self.table = table
        } catch {
            throw Self.storeError(error, "cannot open the download store at \(path)", path: path)
        }
    }

    deinit {
        // The table (and with it the connection) is released right after this, on the releasing
        // thread; nothing else can use it any more.
        executor.shutdown()
    }

    // MARK: DownloadStore

    /// Every record, in `DownloadRecord.queueOrder` order (then by id).
    ///
    /// - Throws: `DownloadError(.store, …)` when the database cannot be read or a row cannot be
    ///   turned back into a record (the error names the download); no record is skipped silently.
    public func loadAll() throws -> [DownloadRecord] {
        try perform("cannot load the downloads") { try $0.loadAll() }
    }

    /// Inserts or replaces the record with the same id, without its secrets.
    public func save(_ record: DownloadRecord) throws {
        try perform("cannot save download \"\(record.id)\"") { try $0.save(record.withoutSecrets) }
    }

    /// Inserts or replaces each record, without its secrets, in one transaction: when the call
    /// returns all are saved, when it throws none is.
    public func saveAll(_ records: [DownloadRecord]) async throws {
        guard records.count > 1 else {
            if let record = records.first { try save(record) }
            return
        }
        try perform("cannot save \(records.count) downloads") { try $0.saveAll(records.map(\.withoutSecrets)) }
    }

    /// Records that `bytes` of download `id` are on disk, belonging to `validator`, and sets its
    /// `updatedAt` to now. Does nothing for an unknown id.
    public func checkpoint(id: String, bytes: Int64, validator: Validator?) throws {
        try perform("cannot checkpoint download \"\(id)\"") {
            try $0.checkpoint(id: id, bytes: bytes, validator: validator, at: Date())
        }
    }

    /// Records the bytes on disk of each segment of download `id`, belonging to `validator`; its
    /// checkpointed bytes become their contiguous prefix (what one stream continues after) and
    /// its `updatedAt` now. Does nothing for an unknown id.
    public func checkpoint(id: String, segments: [SegmentCheckpoint], validator: Validator?) async throws {
        try perform("cannot checkpoint download \"\(id)\"") {
            try $0.checkpoint(id: id, segments: segments, validator: validator, at: Date())
        }
    }

    /// Forgets download `id`. Does nothing for an unknown id.
    public func remove(id: String) throws {
        try perform("cannot remove download \"\(id)\"") { try $0.remove(id: id) }
    }

    // MARK: paging (indexes of schema version 4)
    // Declared async, so that a call on the concrete type is this store's query, not the
    // protocol's default on loadAll().

    /// `true`: a downloader leaves waiting downloads here and pages them in as slots free up.
    public nonisolated var pagesWaitingDownloads: Bool { true }

    /// Every record whose state is not in `states`, in queue order (then by id).
    public func loadAll(excluding states: Set<DownloadState>) async throws -> [DownloadRecord] {
        try perform("cannot load the downloads") { try $0.loadAll(excluding: states) }
    }

    /// Up to `limit` waiting records in the order they run (priority, queue order, id), read from
    /// an index: the cost grows with `limit`, not with the number of rows.
    public func nextWaiting(limit: Int) async throws -> [DownloadRecord] {
        try perform("cannot read the waiting downloads") { try $0.nextWaiting(limit: limit) }
    }

    /// The record of download `id`, or `nil`.
    public func record(id: String) async throws -> DownloadRecord? {
        try perform("cannot read download \"\(id)\"") { try $0.record(id: id) }
    }

    /// How many records are in each state, counted on an index.
    public func countsByState() async throws -> [DownloadState: Int] {
        try perform("cannot count the downloads") { try $0.countsByState() }
    }

    /// Up to `limit` records after queue position `position` in one of `states`, in queue order.
    public func page(in states: Set<DownloadState>?, after position: Int64?, limit: Int) async throws -> [DownloadRecord] {
        try perform("cannot list the downloads") { try $0.page(in: states, after: position, limit: limit) }
    }

    /// The largest queue order stored.
    public func lastQueueOrder() async throws -> Int64? {
        try perform("cannot read the queue") { try $0.lastQueueOrder() }
    }

    /// The staging paths of waiting records with checkpointed bytes, from a partial index.
    public func waitingPartPaths() async throws -> Set<String> {
        try perform("cannot read the waiting downloads") { try $0.waitingPartPaths() }
    }

    /// The id of an unfinished record writing to `destination` or `partPath`, from a partial index
    /// on the staging path.
    public func unfinishedOwner(destination: String, partPath: String) async throws -> String? {
        try perform("cannot read the downloads") { try $0.unfinishedOwner(destination: destination, partPath: partPath) }
    }

    // MARK: lifecycle

    /// Closes the database: the write-ahead log is folded into the main file and removed. Later
    /// calls throw `DownloadError(.store, …)`. Closing twice does nothing. The store also closes
    /// when it is released.
    public func close() {
        guard let table else { return }
        self.table = nil
        self.journalTable = nil
        let connection = table.connection
        _ = consume table
        connection.close()
    }

    /// Whether the store's code runs on its own thread (for tests).
    func runsOnOwnThread() -> Bool { executor.isCurrent }

    // MARK: private

    func performOnJournal<T>(_ context: String, _ body: (SQLiteJournalTable) throws -> T) throws -> T {
        try perform(context) { _ in
            guard let journalTable else { throw DownloadError(.store, "the download store at \(path) is closed") }
            return try body(journalTable)
        }
    }

    func perform<T>(_ context: String, _ body: (SQLiteRecordTable) throws -> T) throws -> T {
        guard let table else {
            throw DownloadError(.store, "\(context): the download store at \(path) is closed")
        }
        do {
            return try body(table)
        } catch {
            throw Self.storeError(error, context, path: path)
        }
    }

    private static func open(path: String, configuration: Configuration) throws -> SQLiteRecordTable {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw DownloadError(.store, "\(path) is a directory")
        }
        let connection = try SQLiteConnection(path: path)
        let milliseconds = configuration.busyTimeout.components.seconds * 1000
            + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(connection.handle, Int32(clamping: milliseconds))
        try SQLiteSchema.recognise(connection, path: path)
        let mode = try connection.strings("PRAGMA journal_mode = WAL")
        guard mode == ["wal"] else {
            throw DownloadError(.store, "the file system of \(path) does not support SQLite's WAL mode")
        }
        switch configuration.durability {
        case .processCrash: try connection.execute("PRAGMA synchronous = NORMAL")
        case .powerLoss: try connection.execute("PRAGMA synchronous = FULL")
        }
        try SQLiteSchema.migrate(connection)
        return try SQLiteRecordTable(connection)
    }

    /// Turns any error into a `DownloadError(.store, …)` that says what went wrong in words.
    private static func storeError(_ error: any Error, _ context: String, path: String) -> DownloadError {
        if let error = error as? DownloadError { return error.code == .store ? error : error.adding(context: context) }
        guard let sqlite = error as? SQLiteError else {
            return DownloadError(.store, "\(context): \(error)", underlying: SendableErrorBox(error))
        }
        let reason: String = switch sqlite.code & 0xff {
        case SQLITE_NOTADB: "\(path) is not an SQLite database; it was left untouched"
        case SQLITE_CORRUPT: "the database is corrupt; it was left untouched"
        case SQLITE_READONLY: "the database file is read-only"
        case SQLITE_CANTOPEN: "the file cannot be opened or created (does the directory exist, may we write to it?)"
        case SQLITE_FULL: "the disk is full"
        case SQLITE_BUSY, SQLITE_LOCKED: "another connection held the database locked for too long"
        case SQLITE_IOERR: "an I/O error occurred"
        default: sqlite.message
        }
        var result = DownloadError(.store, reason, underlying: sqlite)
        result = result.adding(context: context)
        return result
    }
}
