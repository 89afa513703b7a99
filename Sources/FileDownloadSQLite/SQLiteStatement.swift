internal import CSQLite

/// One prepared statement of a ``SQLiteConnection``. Not thread-safe: used only on the store's
/// thread. Bind with 1-based indexes, read columns with 0-based ones (SQLite's convention).
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ sql: String, on connection: SQLiteConnection) throws(SQLiteError) {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw connection.error(rc, "cannot prepare \"\(sql.prefix(60))\"")
        }
        self.handle = statement
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: binding

    func bind(_ index: Int32, _ value: String?) throws(SQLiteError) {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        let rc = value.utf8CString.withUnsafeBufferPointer { buffer in
            csqlite_bind_text(handle, index, buffer.baseAddress, Int32(buffer.count - 1))
        }
        try check(rc)
    }

    func bind(_ index: Int32, _ value: Int64?) throws(SQLiteError) {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ index: Int32, _ value: Double) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    // MARK: running

    /// Runs the statement to its end (for statements that return no rows), then resets it.
    func run() throws(SQLiteError) {
        defer { reset() }
        var rc = sqlite3_step(handle)
        while rc == SQLITE_ROW { rc = sqlite3_step(handle) }
        guard rc == SQLITE_DONE else { throw connection.error(rc, "cannot run a statement") }
    }

    /// Steps once: `true` when a row is ready to read, `false` at the end.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(rc, "cannot read a row")
        }
    }

    /// Clears the bindings and rewinds the statement so it can run again.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: columns

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func int64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : sqlite3_column_int64(handle, column)
    }

    func double(_ column: Int32) -> Double? {
        isNull(column) ? nil : sqlite3_column_double(handle, column)
    }

    private func check(_ rc: Int32) throws(SQLiteError) {
        guard rc == SQLITE_OK else { throw connection.error(rc, "cannot bind a value") }
    }
}
