internal import CSQLite

/// One SQLite connection. Not thread-safe: created, used and closed on the store's thread only.
final class SQLiteConnection {
    /// The `sqlite3*` handle; valid until ``close()``.
    let handle: OpaquePointer
    private var isClosed = false

    /// Opens (creating if absent) the database file at `path` for reading and writing.
    ///
    /// Opening reads nothing yet and writes nothing: an existing file is only looked at by the
    /// first statement. Throws when the file cannot be opened or is read-only.
    init(path: String) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message)
        }
        self.handle = db
        sqlite3_extended_result_codes(db, 1)
        // SQLite falls back to read-only when the file is write-protected; a store must write.
        // (Throwing here runs deinit, which closes the handle.)
        if sqlite3_db_readonly(db, "main") == 1 {
            throw SQLiteError(code: SQLITE_READONLY, message: "the file is read-only")
        }
    }

    deinit { close() }

    /// Closes the connection. Statements must have been released before. Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
    }

    /// An error from result code `rc` with SQLite's current message, prefixed by `context`.
    func error(_ rc: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: rc, message: "\(context): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs one or more statements that return no rows we need.
    func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, "cannot run \"\(sql.prefix(60))\"") }
    }

    /// The first column of the first row of `sql` as an integer (for `PRAGMA x` and `count(*)`).
    func integer(_ sql: String) throws(SQLiteError) -> Int64 {
        let statement = try SQLiteStatement(sql, on: self)
        guard try statement.step(), let value = statement.int64(0) else {
            throw SQLiteError(code: SQLITE_ERROR, message: "\"\(sql)\" returned no value")
        }
        return value
    }

    /// The first column of every row of `sql` as text.
    func strings(_ sql: String) throws(SQLiteError) -> [String] {
        let statement = try SQLiteStatement(sql, on: self)
        var rows: [String] = []
        while try statement.step() { rows.append(statement.string(0) ?? "") }
        return rows
    }

    /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`),
    /// committing when it returns and rolling back when it throws.
    func writeTransaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Rolls back the open transaction, if any (its own failure is not reported: there is then
    /// nothing left to roll back).
    func rollback() {
        sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
    }
}
