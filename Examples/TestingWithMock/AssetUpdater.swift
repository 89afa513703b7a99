import FileDownload
import Foundation

// snippet: asset-updater
/// The part of an app that keeps its assets up to date: the download logic we want to test.
///
/// It starts one download per asset into `directory`, with the asset's SHA-256, and waits until
/// each one is over: completed, or stopped in a state only a caller changes (failed, or interrupted
/// with no retry due, such as a full disk). Transient failures are retried by the downloader.
struct AssetUpdater: Sendable {
    let downloader: Downloader
    let directory: URL

    init(downloader: Downloader, directory: URL) {
        self.downloader = downloader
        self.directory = directory
    }

    func update(_ assets: [Asset]) async throws -> AssetReport {
        for asset in assets {
            try await downloader.start(id: asset.name, url: asset.url,
                                       destination: directory.appendingPathComponent(asset.name),
                                       options: DownloadOptions(sha256: asset.sha256))
        }
        var report = AssetReport()
        for (name, outcome) in try await downloader.outcomes(of: assets.map(\.name)) {
            if outcome.isCompleted {
                report.ready.insert(name)
            } else {
                report.failed[name] = outcome.error?.code.rawValue ?? outcome.state.rawValue
            }
            let attempts = await downloader.info(of: name)?.attempts ?? 1
            report.retries += max(0, attempts - 1)
        }
        return report
    }
}
// end-snippet
