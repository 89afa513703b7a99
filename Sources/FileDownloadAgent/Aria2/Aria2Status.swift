import FileDownload
import Foundation

/// A download as aria2's `tellStatus` describes it: aria2's status names and its numbers as
/// strings.
///
/// The agent's states map to aria2's: `downloading` is `active`; `waiting` (for a slot) and
/// `interrupted` (a retry is due) are `waiting`; `paused` and `notStarted` (added without
/// starting; `unpause` starts it) are `paused`; `completed` is `complete`; `failed` is `error`;
/// `cancelled` is `removed`.
enum Aria2Status {
    /// The states `tellWaiting` lists (aria2's `waiting` and `paused`).
    static let waitingStates: Set<DownloadState> = [.notStarted, .waiting, .interrupted, .paused]
    /// The states `tellStopped` lists (aria2's `complete`, `error` and `removed`).
    static let stoppedStates: Set<DownloadState> = [.completed, .failed, .cancelled]

    /// aria2's name of `state`.
    static func name(of state: DownloadState) -> String {
        switch state {
        case .downloading: "active"
        case .waiting, .interrupted: "waiting"
        case .paused, .notStarted: "paused"
        case .completed: "complete"
        case .failed: "error"
        case .cancelled: "removed"
        }
    }

    /// The status struct of `info`: only `keys` when given. Fields: `gid`, `status`,
    /// `totalLength` (0 while unknown), `completedLength`, `uploadLength` (0), `downloadSpeed`
    /// (bytes per second while active, else 0), `uploadSpeed` (0), `connections`, `dir`, `files`
    /// (one file: its path, lengths and URIs, the mirrors after the URL), `errorCode` (stopped
    /// downloads: 0, or 1 for an error) and `errorMessage` (an error's message).
    static func of(_ info: DownloadInfo, keys: Set<String>?) -> Aria2JSON {
        let active = info.state == .downloading
        let total = info.progress.expectedBytes ?? (info.state == .completed ? info.progress.receivedBytes : 0)
        var uris: [Aria2JSON] = [.object(["uri": .string(info.url.absoluteString), "status": "used"])]
        uris += info.mirrors.map { .object(["uri": .string($0.absoluteString), "status": "waiting"]) }
        var fields: [String: Aria2JSON] = [
            "gid": .string(Aria2GID.of(info.id)),
            "status": .string(name(of: info.state)),
            "totalLength": .number(total),
            "completedLength": .number(info.progress.receivedBytes),
            "uploadLength": "0",
            "downloadSpeed": .number(active ? Int64(info.progress.bytesPerSecond.rounded()) : 0),
            "uploadSpeed": "0",
            "connections": active ? "1" : "0",
            "dir": .string(info.destination.deletingLastPathComponent().path),
            "files": .array([.object([
                "index": "1",
                "path": .string(info.destination.path),
                "length": .number(total),
                "completedLength": .number(info.progress.receivedBytes),
                "selected": "true",
                "uris": .array(uris),
            ])]),
        ]
        if stoppedStates.contains(info.state) {
            fields["errorCode"] = info.state == .failed ? "1" : "0"
        }
        if info.state == .failed || info.state == .interrupted, let error = info.lastError {
            fields["errorMessage"] = .string(error)
        }
        if let keys { fields = fields.filter { keys.contains($0.key) } }
        return .object(fields)
    }
}
