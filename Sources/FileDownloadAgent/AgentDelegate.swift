import FileDownload
import Foundation

/// The agent's downloader delegate: secret header fields (marked secret, or `Authorization`,
/// `Cookie`, `Proxy-Authorization`) go only to the origin (scheme, host, port) of a download's
/// first URL, as `fdl get --mirror` sends them: an attempt on a mirror of another origin gets the
/// other fields only. The API records each download's first URL in ``origins`` before it adds it.
/// A download restored after a restart has no secret fields (they are kept in memory only), so it
/// needs no record.
struct AgentDelegate: DownloaderDelegate {
    let origins: DownloadOrigins

    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
        guard options.headers.contains(where: \.isSensitive), !origins.isFirstOrigin(url, of: id) else { return options }
        var options = options
        options.headers.removeAll(where: \.isSensitive)
        return options
    }
}
