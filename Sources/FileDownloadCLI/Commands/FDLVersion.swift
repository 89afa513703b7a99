import FileDownloadHTTP
import FileDownloadSFTP
import FileDownloadSQLite

/// What `fdl --version` prints: fdl's version and the versions of the C libraries this process
/// runs with (libcurl with its TLS library, libssh2, SQLite), for bug reports.
enum FDLVersion {
    /// The version of `fdl` (and of the library it is built from).
    static let number = "1.0"

    /// `fdl 1.0`, then one line per library.
    static var text: String {
        """
        fdl \(number) (swift-file-download)
        \(HTTPTransport.libcurlVersion)
        libssh2/\(SFTPTransport.libssh2Version)
        SQLite/\(SQLiteDownloadStore.sqliteVersion)
        """
    }
}
