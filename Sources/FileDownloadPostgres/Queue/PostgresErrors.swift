import FileDownload
import PostgresNIO

/// Turns what postgres-nio throws into a `DownloadError` (code `store`) a person can act on.
/// PSQLError's own description hides everything (to keep queries and binds out of logs); this
/// keeps the server's message and SQLSTATE, and the kind of connection failure, never the query's
/// values or the password.
enum PostgresErrors {
    static func describe(_ error: any Error, endpoint: String, doing what: String) -> DownloadError {
        if let error = error as? DownloadError { return error }
        if let transaction = error as? PostgresTransactionError,
           let cause = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
            return describe(cause, endpoint: endpoint, doing: what)
        }
        guard let psql = error as? PSQLError else {
            return DownloadError(.store, "PostgreSQL at \(endpoint): \(what) failed: \(error)", isRetryable: true)
        }
        if psql.code == .server, let info = psql.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = info[.message] ?? "an error"
            let detail = info[.detail].map { " (\($0))" } ?? ""
            // Class 08 (connection exception) and 57 (operator intervention: shutdown, starting
            // up) pass when the server is back; everything else is a real answer.
            let retryable = state.hasPrefix("08") || state.hasPrefix("57") || state == "40001" || state == "40P01"
            let hint = state.hasPrefix("28") ? " (check the user name and the password in PGPASSWORD or the password file)" : ""
            return DownloadError(.store, "PostgreSQL at \(endpoint): \(what) failed: \(message)\(detail) [SQLSTATE \(state)]\(hint)",
                                 isRetryable: retryable)
        }
        let cause = psql.underlying.map { ": \($0)" } ?? ""
        return DownloadError(.store, "PostgreSQL at \(endpoint): \(what) failed: \(psql.code.description)\(cause)",
                             isRetryable: true)
    }
}
