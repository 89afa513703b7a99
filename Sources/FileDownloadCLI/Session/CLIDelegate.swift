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
        guard !headers.isEmpty else { return options }
        var options = options
        options.headers = headers
        return options
    }
}
