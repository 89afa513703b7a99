import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing

extension SingleDownload {
    /// Starts `url` (id "p") with `transport` registered for `scheme`, into `directory`'s `name`,
    /// paced by ``FirstAttemptPacing`` so it is still running after 300 KiB; pauses it there and
    /// resumes it at once. Expects it to complete with `content`, never restarted, and returns
    /// every event seen. After `limit` the downloader is shut down.
    static func pausedAndResumed(
        _ url: URL, transport: any Transport, scheme: String, directory: TemporaryDirectory, name: String,
        content: Data, limit: Duration, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [DownloadEvent] {
        var transports = TransportRegistry()
        transports.register(transport, for: scheme)
        let downloader = Downloader(
            configuration: DownloaderConfiguration(
                retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(20), jitter: 0),
                progressInterval: .milliseconds(50), downloadsDirectory: directory.url),
            transports: transports, delegate: FirstAttemptPacing())
        let events = downloader.events()
        try await downloader.start(id: "p", url: url, destination: directory.file(name))
        let seen = try await downloader.eventsActingOnce(events, after: 300 * 1024 + 1, limit: limit) { downloader in
            #expect(try await downloader.pause("p") != nil, sourceLocation: sourceLocation)
            try await downloader.resume("p")
        }
        await downloader.shutdown()
        guard case .completed(_, let file)? = seen.last else {
            Issue.record("did not complete: \(String(describing: seen.last))", sourceLocation: sourceLocation)
            return seen
        }
        #expect(try Data(contentsOf: file) == content, sourceLocation: sourceLocation)
        #expect(!seen.contains { if case .restarted = $0 { true } else { false } }, sourceLocation: sourceLocation)
        return seen
    }
}
