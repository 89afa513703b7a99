import FileDownload
import Foundation

/// A fleet worker's delegate: before the finished file of a download is moved into place, the
/// worker confirms in the queue that it still holds that download's lease
/// (`FleetWorker.confirmBeforeMove(_:)`), so a worker that lost it (frozen past its lease while
/// another claimed the download) keeps the file in staging instead of delivering it too.
///
/// Holds the worker strongly: the worker drops its downloader (and so this) when it stops.
struct LeaseFence: DownloaderDelegate {
    let worker: FleetWorker

    func download(_ id: String, willMoveTo destination: URL) async throws {
        try await worker.confirmBeforeMove(id)
    }
}
