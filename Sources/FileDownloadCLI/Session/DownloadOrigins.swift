import FileDownload
import Foundation
import Synchronization

/// The first URL of each download of an `fdl get` run, by download id: the origin that `--user`
/// was given for. A challenge on a mirror of another origin is not answered with it (the
/// ``Downloader`` itself keeps secret header fields from such a mirror).
///
/// Safe to share between tasks (a mutex guards the table).
final class DownloadOrigins: Sendable {
    private let firstURLs = Mutex<[String: URL]>([:])

    init() {}

    /// Records `url` as the first URL of download `id` (before the download starts), replacing
    /// what was recorded for `id`.
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
        return url.origin == first.origin
    }
}
