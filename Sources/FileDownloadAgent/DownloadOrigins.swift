public import Foundation
import Synchronization

/// The first URL of each download, by download id: the origin that the download's secret header
/// fields (and, in `fdl`, `--user`) were given for. An attempt on a mirror of another origin gets
/// neither: `fdl get`'s delegate and the agent's (`AgentDelegate`) ask ``isFirstOrigin(_:of:)``
/// before every attempt.
///
/// Safe to share between tasks (a mutex guards the table).
public final class DownloadOrigins: Sendable {
    private let firstURLs = Mutex<[String: URL]>([:])

    public init() {}

    /// Records `url` as the first URL of download `id` (before the download starts), replacing
    /// what was recorded for `id`.
    public func record(_ url: URL, for id: String) {
        firstURLs.withLock { $0[id] = url }
    }

    /// Records `url` as the first URL of download `id` unless one is recorded for `id`; returns
    /// whether it recorded it. (A request that reuses the id of a running download must not
    /// change where that download's secrets may go.)
    public func claim(_ url: URL, for id: String) -> Bool {
        firstURLs.withLock { table in
            guard table[id] == nil else { return false }
            table[id] = url
            return true
        }
    }

    /// Forgets what was recorded for `id` (the download was forgotten; its id may be used again).
    public func forget(_ id: String) {
        _ = firstURLs.withLock { $0.removeValue(forKey: id) }
    }

    /// The first URL recorded for `id`.
    public func firstURL(of id: String) -> URL? {
        firstURLs.withLock { $0[id] }
    }

    /// Whether `url` has the origin (scheme, host and port) of download `id`'s first URL; `false`
    /// when none was recorded.
    public func isFirstOrigin(_ url: URL, of id: String) -> Bool {
        guard let first = firstURL(of: id) else { return false }
        return Self.origin(of: url) == Self.origin(of: first)
    }

    /// Scheme, host and port (the scheme's default when the URL gives none), lowercased.
    public static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let defaultPort = ["http": 80, "https": 443, "sftp": 22][scheme]
        let port = url.port ?? defaultPort ?? -1
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
