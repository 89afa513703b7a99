import FileDownload
import FileDownloadAgent
import Foundation
import Logging

/// The downloader delegate of `fdl`: puts the command line's header fields (sensitive ones
/// included, which are never stored) on every attempt, including attempts that continue a
/// download of an earlier run; answers servers that ask for credentials from `--user` and the
/// netrc file (``CLIDelegate+Credentials``).
///
/// Sensitive header fields (`--header-secret`, `Authorization`, `Cookie`, `Proxy-Authorization`)
/// go only to the origin (scheme, host, port) of the download's first URL (the ``Downloader``
/// removes them on a mirror of another origin), and so does `--user` (``origins``).
struct CLIDelegate: DownloaderDelegate {
    let headers: [HeaderField]
    var credentials = CredentialSource()
    /// The first URL of each download, which the session records before starting it.
    var origins = DownloadOrigins()
    /// Where `-v` sends what the delegate does (never a secret).
    var logger = Logger(label: "fdl", factory: { _ in SwiftLogNoOpLogHandler() })
    /// With `--fresh-url-timeout`: waits for `fdl url ID NEWURL` (over the run's socket) when a
    /// link expires; `nil`: no fresh URL, a refused download fails as before.
    var refresher: AgentURLRefresher?

    func freshURL(forID id: String, current: URL, reason: URLRefreshReason) async -> URL? {
        await refresher?.freshURL(forID: id, current: current, reason: reason)
    }

    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
        var options = options
        if !headers.isEmpty {
            options.headers = headers
            // The downloader removes the secret ones on a mirror of another origin.
            if headers.contains(where: \.isSensitive), !origins.isFirstOrigin(url, of: id) {
                logger.debug("\(id): secret header fields are not sent to \(url.origin), not the origin of the download's first URL")
            }
        }
        logger.debug("\(id): attempt options: \(Self.summary(of: options))")
        return options
    }

    /// The options of an attempt in words, for `-v`: never a header's value.
    static func summary(of options: TransferOptions) -> String {
        let rate = options.maxBytesPerSecond.map { "\($0) bytes/s" } ?? "none"
        return "rate limit \(rate), connect timeout \(options.connectTimeout), idle timeout \(options.requestTimeout), "
            + "max time \(options.resourceTimeout), user agent \(options.userAgent ?? "default"), "
            + "header fields \(options.headers.map(\.name))"
    }
}
