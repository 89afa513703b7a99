/// A failure reported by SQLite: its extended result code and message. Internal: it travels as the
/// `DownloadError.underlying` error of a `DownloadError(.store, …)`.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_NOTADB` is 26, `SQLITE_CORRUPT` 11, ...).
    var code: Int32
    /// What we were doing, then SQLite's message.
    var message: String

    var description: String { "\(message) (SQLite code \(code))" }
}
