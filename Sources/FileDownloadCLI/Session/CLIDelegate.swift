import FileDownload
import Foundation

/// The downloader delegate of `fdl`: puts the command line's header fields (sensitive ones
/// included, which are never stored) on every attempt, including attempts that continue a
/// download of an earlier run.
struct CLIDelegate: DownloaderDelegate {
    let headers: [HeaderField]

    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
        guard !headers.isEmpty else { return options }
        var options = options
        options.headers = headers
        return options
    }
}
