import FileDownload
import Foundation

/// The `events` and `journal_states` tables of an open store: the event journal's prepared
/// statements. Not thread-safe: lives on the store's thread.
final class SQLiteJournalTable {
    // Statements are declared before the connection so they are finalised before it closes.
    private let insert: SQLiteStatement
    private let prune: SQLiteStatement
    private let setState: SQLiteStatement
    private let deleteState: SQLiteStatement
    private let selectAfter: SQLiteStatement
    private let selectState: SQLiteStatement
    private let selectFirstStoredAndJournalled: SQLiteStatement
    private let selectStoredAndJournalled: SQLiteStatement
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) throws(SQLiteError) {
        self.connection = connection
        insert = try SQLiteStatement("""
            INSERT INTO events (download_id, state, recorded_at, payload) VALUES (?1, ?2, ?3, ?4)
            """, on: connection)
        prune = try SQLiteStatement("DELETE FROM events WHERE sequence <= ?1", on: connection)
        setState = try SQLiteStatement(
            "INSERT OR REPLACE INTO journal_states (download_id, state) VALUES (?1, ?2)", on: connection)
        deleteState = try SQLiteStatement("DELETE FROM journal_states WHERE download_id = ?1", on: connection)
        selectAfter = try SQLiteStatement("""
            SELECT sequence, download_id, state, recorded_at, payload FROM events
            WHERE sequence > ?1 ORDER BY sequence LIMIT ?2
            """, on: connection)
        selectState = try SQLiteStatement("SELECT state FROM journal_states WHERE download_id = ?1", on: connection)
        // Walk `downloads` by its primary key (from the first id, or after `?1`): a page reads
        // `?2` rows however many the store holds, and each looks up its journalled state by
        // primary key. Two statements, so that the planner sees a plain range on the key.
        let storedAndJournalled = """
            SELECT d.id, d.state, j.state, d.updated_at FROM downloads AS d
            LEFT JOIN journal_states AS j ON j.download_id = d.id
            """
        selectFirstStoredAndJournalled = try SQLiteStatement(
            "\(storedAndJournalled) ORDER BY d.id LIMIT ?2", on: connection)
        selectStoredAndJournalled = try SQLiteStatement(
            "\(storedAndJournalled) WHERE d.id > ?1 ORDER BY d.id LIMIT ?2", on: connection)
    }

    /// Appends `events` in one transaction, records the states they announce, and drops the
    /// oldest rows beyond `capacity`. Returns the sequence numbers given, in order.
    func append(_ events: [SQLiteDownloadStore.JournalEvent], capacity: Int, at date: Date) throws -> [Int64] {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            var sequences: [Int64] = []
            sequences.reserveCapacity(events.count)
            for event in events {
                try insert.bind(1, event.downloadID)
                try insert.bind(2, event.state?.rawValue)
                try insert.bind(3, date.timeIntervalSinceReferenceDate)
                try insert.bind(4, String(decoding: event.payload, as: UTF8.self))
                try insert.run()
                sequences.append(connection.lastInsertedRowID)
                if let id = event.downloadID, let state = event.state {
                    try setState.bind(1, id)
                    try setState.bind(2, state.rawValue)
                    try setState.run()
                }
            }
            if let last = sequences.last, last > Int64(capacity) {
                try prune.bind(1, last - Int64(capacity))
                try prune.run()
            }
            try connection.execute("COMMIT")
            return sequences
        } catch {
            connection.rollback()
            throw error
        }
    }

    /// Up to `limit` entries with a sequence number above `sequence`, oldest first.
    func entries(after sequence: Int64, limit: Int) throws -> [SQLiteDownloadStore.JournalEntry] {
        let s = selectAfter
        defer { s.reset() }
        try s.bind(1, sequence)
        try s.bind(2, Int64(limit))
        var entries: [SQLiteDownloadStore.JournalEntry] = []
        while try s.step() {
            let number = s.int64(0) ?? 0
            guard let payload = s.string(4) else {
                throw SQLiteRowProblem("journal entry \(number) has no payload")
            }
            entries.append(SQLiteDownloadStore.JournalEntry(
                sequence: number, downloadID: s.string(1), state: s.string(2).flatMap(DownloadState.init(rawValue:)),
                recordedAt: Date(timeIntervalSinceReferenceDate: s.double(3) ?? 0), payload: Data(payload.utf8)))
        }
        return entries
    }

    /// The oldest sequence number kept (`nil` when the journal is empty) and the last one ever
    /// given (0 when none was).
    func bounds() throws(SQLiteError) -> (oldest: Int64?, last: Int64) {
        let oldest = try connection.integer("SELECT coalesce(min(sequence), 0) FROM events")
        let last = try connection.integer("SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'events'")
        return (oldest == 0 ? nil : oldest, last)
    }

    /// The last state the journal announced for each of `ids` that it announced a state of.
    func states(of ids: some Sequence<String>) throws -> [String: DownloadState] {
        let s = selectState
        var states: [String: DownloadState] = [:]
        for id in ids {
            defer { s.reset() }
            try s.bind(1, id)
            if try s.step(), let state = s.string(0).flatMap(DownloadState.init(rawValue:)) {
                states[id] = state
            }
        }
        return states
    }

    /// Up to `limit` downloads after `id` (all from the first when `nil`), in the order of their
    /// ids: those saved before `date` whose stored state is not the one the journal announced last
    /// (or that it never announced), and the last id looked at (`nil` when the page reached the
    /// end). Rows saved later are looked at (they count toward `limit`) but not returned.
    func unannounced(after id: String?, savedBefore date: Date, limit: Int) throws -> SQLiteDownloadStore.UnannouncedPage {
        let s = id == nil ? selectFirstStoredAndJournalled : selectStoredAndJournalled
        defer { s.reset() }
        if let id { try s.bind(1, id) }
        try s.bind(2, Int64(limit))
        var ids: [String] = []
        var last: String?
        var count = 0
        while try s.step() {
            guard let id = s.string(0) else { continue }
            count += 1
            last = id
            if s.string(1) != s.string(2), (s.double(3) ?? 0) < date.timeIntervalSinceReferenceDate { ids.append(id) }
        }
        return SQLiteDownloadStore.UnannouncedPage(ids: ids, resumeAfter: count < limit ? nil : last)
    }

    /// Forgets the announced state of download `id`.
    func forgetState(of id: String) throws(SQLiteError) {
        try deleteState.bind(1, id)
        try deleteState.run()
    }
}
