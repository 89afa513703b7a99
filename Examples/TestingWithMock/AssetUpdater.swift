import FileDownload
import Foundation

// snippet: asset-updater
/// The part of an app that keeps its assets up to date: the download logic we want to test.
///
/// It starts one download per asset into `directory`, with the asset's SHA-256, and waits until
/// each one completed or failed for good. Transient failures are retried by the downloader.
struct AssetUpdater: Sendable {
    let downloader: Downloader
    let directory: URL

    init(downloader: Downloader, directory: URL) {
        self.downloader = downloader
        self.directory = directory
    }

    func update(_ assets: [Asset]) async throws -> AssetReport {
        let events = downloader.events()
        for asset in assets {
            try await downloader.start(id: asset.name, url: asset.url,
                                       destination: directory.appendingPathComponent(asset.name),
                                       options: DownloadOptions(sha256: asset.sha256))
        }
        var report = AssetReport()
        var pending = Set(assets.map(\.name))
        guard !pending.isEmpty else { return report }
        for await event in events {
            switch event {
            case .completed(let id, _):
                report.ready.insert(id)
                pending.remove(id)
            case .failed(let id, let error, _):
                report.failed[id] = error.code.rawValue
                pending.remove(id)
            case .interrupted(_, _, let retryIn) where retryIn != nil:
                report.retries += 1
            default:
                break
            }
            if pending.isEmpty { break }
        }
        return report
    }
}
// end-snippet
