import FileDownload
import FileDownloadHTTP
import Foundation

/// The end of one download through a real ``Downloader`` with an ``HTTPTransport``: the file or
/// the error, every event, and what the destination held before and after.
struct DownloadRun: Sendable {
    var file: URL?
    var error: DownloadError?
    /// The resume data of the failure, if it kept bytes.
    var resumeData: ResumeData?
    var events: [DownloadEvent]
    /// What confirmed the completed file (``DownloadInfo/checks``); `nil` unless it completed.
    var checks: CompletionChecks?
    /// The destination, which held ``DownloadRun/sentinel`` before the download.
    var destination: URL

    /// Bytes put at the destination before each run, so a failure can show it was not touched.
    static let sentinel = Data("previous version of the file\n".utf8)

    /// The restart reasons announced, in order.
    var restarts: [RestartReason] {
        events.compactMap { if case .restarted(_, let reason) = $0 { reason } else { nil } }
    }

    /// How many times the download was interrupted (retryable failures).
    var interruptions: Int {
        events.filter { if case .interrupted = $0 { true } else { false } }.count
    }

    /// Whether the destination still holds exactly the sentinel bytes and no staging file is left
    /// beside it with the error page in it.
    var destinationUntouched: Bool {
        (try? Data(contentsOf: destination)) == Self.sentinel
    }

    /// Runs one download of `url` to a fresh destination in `fixture` (or, with `resumeData`,
    /// continues that download with a new downloader) and waits (at most `limit`) for it to
    /// complete or fail.
    static func run(
        _ fixture: HTTPFixture,
        _ url: URL,
        resumeData: ResumeData? = nil,
        configuration: HTTPTransport.Configuration = .init(proxy: .none),
        transfer: TransferOptions = TransferOptions(),
        sha256: String? = nil,
        retry: RetryPolicy = RetryPolicy(maxRetries: 5, initialDelay: .milliseconds(20), maxDelay: .milliseconds(200), jitter: 0),
        delegate: (any DownloaderDelegate)? = nil,
        maxConnections: Int? = nil,
        limit: Duration = .seconds(60)
    ) async throws -> DownloadRun {
        let transport = try HTTPTransport(configuration: configuration)
        var transports = TransportRegistry()
        transports.register(transport, for: "http", "https")
        let downloader = Downloader(
            configuration: DownloaderConfiguration(
                retryPolicy: retry, downloadsDirectory: fixture.directory.url,
                defaultTransferOptions: transfer, jitterSeed: 7),
            transports: transports, delegate: delegate)
        let destination = resumeData?.destination ?? fixture.directory.file("out-\(UUID().uuidString.prefix(8)).bin")
        if resumeData == nil { try sentinel.write(to: destination) }
        let events = downloader.events()
        if let resumeData {
            try await downloader.start(id: resumeData.id, resumeData: resumeData)
        } else {
            try await downloader.start(id: "e2e", url: url, destination: destination,
                                       options: DownloadOptions(transfer: transfer, sha256: sha256, maxConnections: maxConnections))
        }
        // A bound, not a wait: if the download never ends, shutting down ends the event sequence.
        let watchdog = Task {
            try await Task.sleep(for: limit)
            await downloader.shutdown()
        }
        var run = DownloadRun(file: nil, error: nil, resumeData: nil, events: [], destination: destination)
        loop: for await event in events {
            run.events.append(event)
            switch event {
            case .completed(_, let file):
                run.file = file
                break loop
            case .failed(_, let error, let resumeData):
                run.error = error
                run.resumeData = resumeData
                break loop
            default:
                continue
            }
        }
        watchdog.cancel()
        if run.file != nil { run.checks = await downloader.downloads().first { $0.state == .completed }?.checks }
        await downloader.shutdown()
        if run.file == nil, run.error == nil {
            run.error = DownloadError(.timedOut, "the download neither completed nor failed within \(limit)")
        }
        return run
    }
}

/// A delegate that answers auth challenges with a closure and accepts 2xx.
struct ChallengeAnswering: DownloaderDelegate {
    let answer: @Sendable (AuthChallenge) -> AuthDisposition
    func download(_ id: String, didReceive challenge: AuthChallenge) async -> AuthDisposition { answer(challenge) }
}
