internal import CSQLite

extension SQLiteDownloadStore {
    /// The version of the SQLite library this process runs with (`3.40.1`): for version and bug
    /// reports.
    public static var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }
}
