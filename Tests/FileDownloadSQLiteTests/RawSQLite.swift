import CSQLite
import FileDownloadTestSupport
import Foundation

/// Direct SQLite access for tests that must make files the store did not write (foreign
/// databases, old or future schema versions).
enum RawSQLite {
    /// Runs `sql` on the database at `path` (created if absent) and closes it again.
    static func execute(_ sql: String, at path: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw TestFailure("cannot open \(path)")
        }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw TestFailure(message.map { String(cString: $0) } ?? "sqlite3_exec failed")
        }
    }

    /// The first column of the first row of `sql` as an integer.
    static func integer(_ sql: String, at path: String) throws -> Int64 {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw TestFailure("cannot open \(path)")
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW else {
            throw TestFailure(String(cString: sqlite3_errmsg(db)))
        }
        return sqlite3_column_int64(statement, 0)
    }
}
