public import FileDownload
public import Foundation

/// The downloads a state directory holds, each checked against its download directory before any
/// command uses a path it names (see `DownloadRecord` and `docs/security.md`).
public struct StoredRecords: Sendable {
    /// Every record, in the store's order.
    public let all: [DownloadRecord]
    /// Why a record may not be used, by id: a path it names lies outside the download directory.
    /// Nothing at such a record's paths is opened, moved or deleted by any command.
    public let refused: [String: String]

    /// Checks each of `records` against `outputDirectory`.
    public init(_ records: [DownloadRecord], outputDirectory: URL) {
        all = records
        var refused: [String: String] = [:]
        for record in records {
            if let problem = record.containmentProblem(in: outputDirectory) { refused[record.id] = problem }
        }
        self.refused = refused
    }

    /// The records whose paths lie in the download directory, in the store's order.
    public var trusted: [DownloadRecord] { all.filter { refused[$0.id] == nil } }

    /// The message for a refused record: what is wrong, and that `fdl` leaves it alone.
    public static func refusal(id: String, problem: String) -> String {
        "the stored download '\(id)' is not used: \(problem); fdl opens, moves and deletes nothing it names"
    }

    /// Writes one line per refused record to standard error, in the store's order.
    public func warnAboutRefused() {
        for record in all {
            if let problem = refused[record.id] { Terminal.writeError("fdl: " + Self.refusal(id: record.id, problem: problem)) }
        }
    }
}
