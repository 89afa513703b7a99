import Foundation

/// A file in which an app keeps the sequence number of the last agent event it handled, so that
/// after a restart it asks for exactly the events after it (``DownloadAgentClient/events(since:includeProgress:)``).
///
/// Save *after* handling an event: an event handled and not yet saved comes again after a crash
/// (at least once); saving first would lose it. The file is written atomically (a new file renamed
/// over the old one), mode 0600.
public struct AgentCursorFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The saved sequence number, or `nil` when the file does not exist.
    ///
    /// - Throws: when the file exists and does not hold a number.
    public func load() throws -> Int64? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int64(text), value >= 0 else {
            throw DownloadAgentClientError(status: 0, code: .badCursor, message: "\(path) does not hold an event sequence number")
        }
        return value
    }

    /// Saves `sequence`.
    public func save(_ sequence: Int64) throws {
        let temporary = path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: Data("\(sequence)\n".utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw DownloadAgentClientError(status: 0, code: .badCursor, message: "cannot write \(temporary)")
        }
        if rename(temporary, path) != 0 {
            throw DownloadAgentClientError(status: 0, code: .badCursor, message: "cannot rename \(temporary) to \(path)")
        }
    }
}
