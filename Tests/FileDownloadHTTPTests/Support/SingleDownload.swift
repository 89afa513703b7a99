import FileDownload
import FileDownloadTestSupport
import Foundation

/// One download through a fresh ``Downloader`` on one transport, to its end: the FTP and S3
/// fixtures' way to run a whole download.
enum SingleDownload {
    /// Downloads `url` with `transport` registered for `schemes`, into a fresh file of
    /// `directory`, at most 2 retries, and returns the file or the error with every event. After
    /// `limit` the downloader is shut down (the events end), so a download that never ends fails
    /// the test instead of hanging it.
    static func run(
        _ url: URL, transport: any Transport, schemes: String..., directory: TemporaryDirectory,
        maxConnections: Int? = nil, delegate: (any DownloaderDelegate)? = nil, limit: Duration = .seconds(60)
    ) async throws -> (file: URL?, error: DownloadError?, events: [DownloadEvent]) {
        var transports = TransportRegistry()
        for scheme in schemes { transports.register(transport, for: scheme) }
        let downloader = Downloader(
            configuration: DownloaderConfiguration(
                retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(20), maxDelay: .milliseconds(100), jitter: 0),
                downloadsDirectory: directory.url),
            transports: transports, delegate: delegate)
        let events = downloader.events()
        try await downloader.start(id: schemes.first ?? "download", url: url,
                                   destination: directory.file("out-\(UUID().uuidString.prefix(8)).bin"),
                                   options: DownloadOptions(maxConnections: maxConnections))
        let watchdog = Task {
            try await Task.sleep(for: limit)
            await downloader.shutdown()
        }
        var seen: [DownloadEvent] = []
        var result: (file: URL?, error: DownloadError?) = (nil, nil)
        loop: for await event in events {
            seen.append(event)
            switch event {
            case .completed(_, let file):
                result.file = file
                break loop
            case .failed(_, let error, _):
                result.error = error
                break loop
            default:
                continue
            }
        }
        watchdog.cancel()
        await downloader.shutdown()
        return (result.file, result.error, seen)
    }
}
