import FileDownload
import Logging
import PostgresNIO

extension QueueSchema {
    /// The first version whose rules for ids and destinations are today's: a queued id of at
    /// most `QueuedDownload.maximumIdentifierLength` characters, a destination that passes
    /// `QueuedDownload.problem(destination:)` (no leading dot, no control character in any
    /// component).
    static let rulesVersion = 3

    /// Marks failed each unfinished (`queued` or `claimed`) download that a version before
    /// ``rulesVersion`` queued and today's rules refuse (`fdl add` refuses such a download now,
    /// and a worker would fail it when it claims it): its record gets the state `failed`, the
    /// code `invalidIdentifier` or `invalidDestination` and a message naming the rule, so that
    /// `fdl list` says why instead of a claim failing later. Runs in the migration's transaction,
    /// before the steps, when the stored version is at least 1 and below ``rulesVersion``.
    /// Answers how many downloads it marked.
    static func failDownloadsBreakingRules(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.query(
            "SELECT id, destination FROM downloads WHERE state IN ('queued', 'claimed') ORDER BY queue_order",
            logger: logger)
        var refused: [(id: String, code: String, message: String)] = []
        for try await (id, destination) in rows.decode((String, String).self) {
            if let problem = problem(id: id) {
                refused.append((id, DownloadError.Code.invalidIdentifier.rawValue, problem))
            } else if let problem = QueuedDownload.problem(destination: destination) {
                refused.append((id, DownloadError.Code.invalidDestination.rawValue, problem))
            }
        }
        for (id, code, problem) in refused {
            let message = "queued before the queue's schema version \(rulesVersion), whose rules refuse it "
                + "(fdl add refuses it now; queue it again under a name that passes): \(problem)"
            logger.warning("a queued download breaks the rules of schema version \(rulesVersion); marked failed",
                           metadata: ["id": "\(id)", "error": "\(problem)"])
            try await connection.query("""
                UPDATE downloads SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
                       record = (CASE WHEN jsonb_typeof(record) = 'object' THEN record
                                      ELSE jsonb_build_object('unreadable', record) END)
                                || jsonb_build_object('state', 'failed', 'errorCode', \(code)::text,
                                                      'errorMessages', jsonb_build_array(\(message)::text))
                WHERE id = \(id) AND state IN ('queued', 'claimed')
                """, logger: logger)
        }
        return refused.count
    }

    /// Why `id` breaks the rules of a queued id (`InputValidation.checkIdentifier(_:)` with
    /// 20 characters less room), or `nil`.
    private static func problem(id: String) -> String? {
        do {
            try InputValidation.checkIdentifier(id)
            try QueuedDownload.checkIdentifierRoom(id)
            return nil
        } catch {
            return error.message
        }
    }
}
