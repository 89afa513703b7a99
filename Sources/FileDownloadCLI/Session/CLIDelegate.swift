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
/// and `--user` go only to the origin (scheme, host, port) of the download's first URL, as
/// recorded in ``origins``: an attempt on a mirror of another origin gets the other fields only.
struct CLIDelegate: DownloaderDelegate {
    let headers: [HeaderField]
    var credentials = CredentialSource()
    /// The first URL of each download, which the session records before starting it.
    var origins = DownloadOrigins()
    /// Where `-v` sends what the delegate does (never a secret).
    var logger = Logger(label: "fdl", factory: { _ in SwiftLogNoOpLogHandler() })

    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
        var options = options
        if !headers.isEmpty {
            if origins.isFirstOrigin(url, of: id) {
                options.headers = headers
            } else {
                options.headers = headers.filter { !$0.isSensitive }
                if options.headers.count < headers.count {
                    logger.debug("\(id): secret header fields are not sent to \(DownloadOrigins.origin(of: url)), not the origin of the download's first URL")
                }
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
