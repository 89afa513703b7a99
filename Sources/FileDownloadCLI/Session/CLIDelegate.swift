import FileDownload
import Foundation
import Logging

/// The downloader delegate of `fdl`: puts the command line's header fields (sensitive ones
/// included, which are never stored) on every attempt, including attempts that continue a
/// download of an earlier run; answers servers that ask for credentials from `--user` and the
/// netrc file (``CLIDelegate+Credentials``).
struct CLIDelegate: DownloaderDelegate {
    let headers: [HeaderField]
    var credentials = CredentialSource()
    /// Where `-v` sends what the delegate does (never a secret).
    var logger = Logger(label: "fdl", factory: { _ in SwiftLogNoOpLogHandler() })

    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
        var options = options
        if !headers.isEmpty { options.headers = headers }
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
