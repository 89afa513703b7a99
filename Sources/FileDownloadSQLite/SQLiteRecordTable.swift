import FileDownload
import Foundation

/// The `downloads` table of an open store: its prepared statements and the mapping between a
/// `DownloadRecord` and a row. Not thread-safe: lives on the store's thread.
final class SQLiteRecordTable {
    private static let columns = """
        id, url, destination, part_path, state, validator_kind, validator_value, validator_strong, \
        checkpointed_bytes, expected_length, options, queue_order, error_code, error_messages, \
        attempts, created_at, updated_at, segments, validator_encoding
        """

    // Statements are declared before the connection so they are finalised before it closes.
    private let insert: SQLiteStatement
    private let updateCheckpoint: SQLiteStatement
    private let delete: SQLiteStatement
    private let selectAll: SQLiteStatement
    private let selectWaiting: SQLiteStatement
    private let selectOne: SQLiteStatement
    private let selectOwner: SQLiteStatement
    let connection: SQLiteConnection

    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    private let decoder = JSONDecoder()
    /// The options saved last and their JSON: the downloads of one program mostly share their
    /// options, and encoding them was most of a save's CPU time (2,000 files, 8,000 saves).
    private var lastOptions: (options: DownloadOptions, json: String)?

    init(_ connection: SQLiteConnection) throws(SQLiteError) {
        self.connection = connection
        insert = try SQLiteStatement("""
            INSERT OR REPLACE INTO downloads (\(Self.columns), priority)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?20, ?19)
            """, on: connection)
        updateCheckpoint = try SQLiteStatement("""
            UPDATE downloads
            SET checkpointed_bytes = ?2, validator_kind = ?3, validator_value = ?4, validator_strong = ?5,
                updated_at = ?6, segments = ?7, validator_encoding = ?8
            WHERE id = ?1
            """, on: connection)
        delete = try SQLiteStatement("DELETE FROM downloads WHERE id = ?1", on: connection)
        selectAll = try SQLiteStatement(
            "SELECT \(Self.columns) FROM downloads ORDER BY queue_order, id", on: connection)
        selectWaiting = try SQLiteStatement("""
            SELECT \(Self.columns) FROM downloads WHERE state = 'waiting'
            ORDER BY priority DESC, queue_order, id LIMIT ?1
            """, on: connection)
        selectOne = try SQLiteStatement("SELECT \(Self.columns) FROM downloads WHERE id = ?1", on: connection)
        // Asked at every add and start: prepared once.
        selectOwner = try SQLiteStatement(
            "SELECT id FROM downloads WHERE part_path IN (?1, ?2, ?3) AND state NOT IN ('completed', 'cancelled') LIMIT 1",
            on: connection)
    }

    /// Inserts or replaces the row of `record` (which must already be stripped of secrets).
    func save(_ record: DownloadRecord) throws {
        let options = try json(of: record.options)
        let messages = record.errorMessages.isEmpty ? "[]" : String(decoding: try encoder.encode(record.errorMessages), as: UTF8.self)
        let s = insert
        try s.bind(1, record.id)
        try s.bind(2, record.url.absoluteString)
        try s.bind(3, record.destination.absoluteString)
        try s.bind(4, record.partPath)
        try s.bind(5, record.state.rawValue)
        try bind(record.validator, at: 6, in: s)
        try s.bind(9, record.checkpointedBytes)
        try s.bind(10, record.expectedLength)
        try s.bind(11, options)
        try s.bind(12, record.queueOrder)
        try s.bind(13, record.errorCode)
        try s.bind(14, messages)
        try s.bind(15, Int64(record.attempts))
        try s.bind(16, record.createdAt.timeIntervalSinceReferenceDate)
        try s.bind(17, record.updatedAt.timeIntervalSinceReferenceDate)
        try s.bind(18, try json(of: record.segments))
        try s.bind(19, Int64(record.options.priority))
        try s.bind(20, record.validator?.contentEncoding)
        try s.run()
    }

    /// Saves `records` (already stripped of secrets) in one transaction; rolls back and rethrows
    /// at the first that fails.
    func saveAll(_ records: [DownloadRecord]) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            for record in records { try save(record) }
            try connection.execute("COMMIT")
        } catch {
            connection.rollback()
            throw error
        }
    }

    /// `segments` as JSON; `[]` without encoding when there are none.
    private func json(of segments: [SegmentCheckpoint]) throws -> String {
        segments.isEmpty ? "[]" : String(decoding: try encoder.encode(segments), as: UTF8.self)
    }

    /// `options` as JSON (sorted keys): the same text for equal options, encoded once in a row.
    private func json(of options: DownloadOptions) throws -> String {
        if let lastOptions, lastOptions.options == options { return lastOptions.json }
        let json = String(decoding: try encoder.encode(options), as: UTF8.self)
        lastOptions = (options, json)
        return json
    }

    /// Updates the checkpoint of row `id` (one stream: no segments); does nothing when there is
    /// no such row.
    func checkpoint(id: String, bytes: Int64, validator: Validator?, at date: Date) throws(SQLiteError) {
        try checkpoint(id: id, bytes: bytes, segmentsJSON: "[]", validator: validator, at: date)
    }

    /// Updates the segments of row `id` (and its checkpointed bytes, their contiguous prefix); does nothing when
    /// there is no such row.
    func checkpoint(id: String, segments: [SegmentCheckpoint], validator: Validator?, at date: Date) throws {
        try checkpoint(id: id, bytes: segments.contiguousPrefix, segmentsJSON: try json(of: segments), validator: validator, at: date)
    }

    private func checkpoint(id: String, bytes: Int64, segmentsJSON: String, validator: Validator?,
                            at date: Date) throws(SQLiteError) {
        let s = updateCheckpoint
        try s.bind(1, id)
        try s.bind(2, bytes)
        try bind(validator, at: 3, in: s)
        try s.bind(6, date.timeIntervalSinceReferenceDate)
        try s.bind(7, segmentsJSON)
        try s.bind(8, validator?.contentEncoding)
        try s.run()
    }

    /// Deletes row `id`; does nothing when there is no such row.
    func remove(id: String) throws(SQLiteError) {
        try delete.bind(1, id)
        try delete.run()
    }

    /// Every row, in queue order. A row that cannot be read back throws (naming its id): a record
    /// is never dropped silently.
    func loadAll() throws -> [DownloadRecord] {
        try records(of: selectAll)
    }

    /// Every row whose state is not in `states`, in queue order. Read through index
    /// `downloads_by_state` for the other states (`state NOT IN` would read every row: a million
    /// waiting ones to find a few running). A row in a state this program does not know throws,
    /// as any row that cannot be read back does: found by one index seek per gap between the
    /// known states' names, so that it is never skipped silently.
    func loadAll(excluding states: Set<DownloadState>) throws -> [DownloadRecord] {
        guard !states.isEmpty else { return try loadAll() }
        try checkStatesKnown()
        let wanted = Set(DownloadState.allCases).subtracting(states)
        guard !wanted.isEmpty else { return [] }
        return try records(of: SQLiteStatement("""
            SELECT \(Self.columns) FROM downloads INDEXED BY downloads_by_state WHERE state IN (\(Self.list(wanted)))
            ORDER BY queue_order, id
            """, on: connection))
    }

    /// Throws when a row's state is none of ``DownloadState``'s: one seek in `downloads_by_state`
    /// per gap below, between and above the known names.
    private func checkStatesKnown() throws {
        let known = DownloadState.allCases.map(\.rawValue).sorted()
        var gaps = [(sql: "state < ?1", bounds: [known[0]]), (sql: "state > ?1", bounds: [known[known.count - 1]])]
        for (lower, upper) in zip(known, known.dropFirst()) {
            gaps.append((sql: "state > ?1 AND state < ?2", bounds: [lower, upper]))
        }
        for gap in gaps {
            let s = try SQLiteStatement("SELECT id, state FROM downloads WHERE \(gap.sql) LIMIT 1", on: connection)
            for (i, bound) in gap.bounds.enumerated() { try s.bind(Int32(i + 1), bound) }
            if try s.step() {
                throw SQLiteRowProblem("download \"\(s.string(0) ?? "")\" cannot be read back: unknown state \"\(s.string(1) ?? "")\"")
            }
        }
    }

    /// Up to `limit` waiting rows, higher priority first, then queue order, then id (index
    /// `downloads_waiting`).
    func nextWaiting(limit: Int) throws -> [DownloadRecord] {
        try selectWaiting.bind(1, Int64(max(0, limit)))
        return try records(of: selectWaiting)
    }

    /// The row of `id`, if any.
    func record(id: String) throws -> DownloadRecord? {
        try selectOne.bind(1, id)
        return try records(of: selectOne).first
    }

    /// Rows per state (index `downloads_by_state`).
    func countsByState() throws -> [DownloadState: Int] {
        let s = try SQLiteStatement("SELECT state, count(*) FROM downloads GROUP BY state", on: connection)
        var counts: [DownloadState: Int] = [:]
        while try s.step() {
            if let state = s.string(0).flatMap(DownloadState.init(rawValue:)) { counts[state] = Int(s.int64(1) ?? 0) }
        }
        return counts
    }

    /// Up to `limit` rows after queue position `position`, in one of `states`, in queue order.
    func page(in states: Set<DownloadState>?, after position: Int64?, limit: Int) throws -> [DownloadRecord] {
        let filter = states.map { "AND state IN (\(Self.list($0)))" } ?? ""
        let s = try SQLiteStatement("""
            SELECT \(Self.columns) FROM downloads WHERE queue_order > ?1 \(filter)
            ORDER BY queue_order, id LIMIT ?2
            """, on: connection)
        try s.bind(1, position ?? Int64.min)
        try s.bind(2, Int64(max(0, limit)))
        return try records(of: s)
    }

    /// The largest queue order, or `nil` when there is no row.
    func lastQueueOrder() throws -> Int64? {
        let s = try SQLiteStatement("SELECT max(queue_order) FROM downloads", on: connection)
        return try s.step() ? s.int64(0) : nil
    }

    /// The staging paths of waiting rows with bytes to continue from: checkpointed bytes or
    /// segments (partial index `downloads_waiting_with_bytes`, whose condition this repeats).
    func waitingPartPaths() throws -> Set<String> {
        let s = try SQLiteStatement(
            // INDEXED BY: left to itself the planner walks downloads_by_state over every waiting
            // row (0.8 s of a restore with 1,000,000 waiting).
            """
            SELECT part_path FROM downloads INDEXED BY downloads_waiting_with_bytes
            WHERE state = 'waiting' AND (checkpointed_bytes > 0 OR segments <> '[]')
            """,
            on: connection)
        var paths: Set<String> = []
        while try s.step() { if let path = s.string(0) { paths.insert(path) } }
        return paths
    }

    /// The id of a row not completed or cancelled whose destination or staging path is
    /// `destination` or `partPath` (partial index `downloads_unfinished_by_part_path`). A row's
    /// staging path is its destination plus the suffix `partPath` adds to `destination`, so its
    /// destination is one of the two exactly when its staging path is `partPath` or `partPath`
    /// plus that suffix; the staging path alone is looked up.
    func unfinishedOwner(destination: String, partPath: String) throws -> String? {
        let suffix = partPath.hasPrefix(destination) ? String(partPath.dropFirst(destination.count)) : ""
        let s = selectOwner
        defer { s.reset() }
        try s.bind(1, destination)
        try s.bind(2, partPath)
        try s.bind(3, partPath + suffix)
        return try s.step() ? s.string(0) : nil
    }

    /// The rows `s` selects (the columns of ``columns``, in order) as records; resets `s`. A row
    /// that cannot be read back throws (naming its id).
    private func records(of s: SQLiteStatement) throws -> [DownloadRecord] {
        defer { s.reset() }
        var records: [DownloadRecord] = []
        // Downloads usually share their options: decode each distinct JSON text once.
        var optionsByJSON: [String: DownloadOptions] = [:]
        while try s.step() {
            let id = s.string(0) ?? ""
            do {
                let optionsJSON = try text(s, 10)
                let options: DownloadOptions
                if let known = optionsByJSON[optionsJSON] {
                    options = known
                } else {
                    options = try decoder.decode(DownloadOptions.self, from: Data(optionsJSON.utf8))
                    optionsByJSON[optionsJSON] = options
                }
                guard let state = DownloadState(rawValue: try text(s, 4)) else {
                    throw SQLiteRowProblem("unknown state \"\(s.string(4) ?? "")\"")
                }
                var validator: Validator?
                if let kind = s.string(5) {
                    validator = Validator(kind: .init(rawValue: kind), value: s.string(6) ?? "",
                                          isStrong: s.int64(7) == 1, contentEncoding: s.string(18))
                }
                records.append(DownloadRecord(
                    id: id,
                    url: try url(s, 1),
                    destination: try url(s, 2),
                    partPath: try text(s, 3),
                    state: state,
                    validator: validator,
                    checkpointedBytes: s.int64(8) ?? 0,
                    segments: try segments(s, 17),
                    expectedLength: s.int64(9),
                    options: options,
                    queueOrder: s.int64(11) ?? 0,
                    errorCode: s.string(12),
                    errorMessages: try decoder.decode([String].self, from: Data(try text(s, 13).utf8)),
                    attempts: Int(s.int64(14) ?? 0),
                    createdAt: Date(timeIntervalSinceReferenceDate: s.double(15) ?? 0),
                    updatedAt: Date(timeIntervalSinceReferenceDate: s.double(16) ?? 0)
                ))
            } catch {
                throw SQLiteRowProblem("download \"\(id)\" cannot be read back: \(error)")
            }
        }
        return records
    }

    // MARK: helpers

    /// The names of `states` as an SQL list (the raw values are the enum's own words).
    private static func list(_ states: Set<DownloadState>) -> String {
        states.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
    }

    private func bind(_ validator: Validator?, at index: Int32, in s: SQLiteStatement) throws(SQLiteError) {
        try s.bind(index, validator?.kind.rawValue)
        try s.bind(index + 1, validator?.value)
        try s.bind(index + 2, validator.map { $0.isStrong ? 1 : 0 })
    }

    private func segments(_ s: SQLiteStatement, _ column: Int32) throws -> [SegmentCheckpoint] {
        let value = try text(s, column)
        return value == "[]" ? [] : try decoder.decode([SegmentCheckpoint].self, from: Data(value.utf8))
    }

    private func text(_ s: SQLiteStatement, _ column: Int32) throws -> String {
        guard let value = s.string(column) else { throw SQLiteRowProblem("column \(column) is NULL") }
        return value
    }

    private func url(_ s: SQLiteStatement, _ column: Int32) throws -> URL {
        let value = try text(s, column)
        guard let url = URL(string: value) else { throw SQLiteRowProblem("\"\(value)\" is not a URL") }
        return url
    }
}
