import Foundation
import Synchronization

/// The first URL of each download `fdl` runs, by download id: the origin that the command line's
/// secret header fields and `--user` were given for. An attempt on a mirror of another origin
/// gets neither (``CLIDelegate``).
final class DownloadOrigins: Sendable {
    private let firstURLs = Mutex<[String: URL]>([:])

    /// Records `url` as the first URL of download `id` (before the download starts).
    func record(_ url: URL, for id: String) {
        firstURLs.withLock { $0[id] = url }
    }

    /// The first URL recorded for `id`.
    func firstURL(of id: String) -> URL? {
        firstURLs.withLock { $0[id] }
    }

    /// Whether `url` has the origin (scheme, host and port) of download `id`'s first URL; `false`
    /// when none was recorded.
    func isFirstOrigin(_ url: URL, of id: String) -> Bool {
        guard let first = firstURL(of: id) else { return false }
        return Self.origin(of: url) == Self.origin(of: first)
    }

    /// Scheme, host and port (the scheme's default when the URL gives none), lowercased.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let defaultPort = ["http": 80, "https": 443, "sftp": 22][scheme]
        let port = url.port ?? defaultPort ?? -1
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
