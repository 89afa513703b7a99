import FileDownload
import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// Answers auth challenges for the end-to-end tests with a closure, and can pace the first
/// attempt of every download so a test can act in the middle of it; later attempts run at full
/// speed.
final class AnsweringDelegate: DownloaderDelegate {
    let answer: @Sendable (AuthChallenge) -> AuthDisposition
    let firstAttemptBytesPerSecond: Int64?
    let attempts = Mutex<[String: Int]>([:])

    init(answer: @escaping @Sendable (AuthChallenge) -> AuthDisposition, firstAttemptBytesPerSecond: Int64?) {
        self.answer = answer
        self.firstAttemptBytesPerSecond = firstAttemptBytesPerSecond
    }

    func download(_ id: String, didReceive challenge: AuthChallenge) async -> AuthDisposition {
        answer(challenge)
    }

    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
        guard let rate = firstAttemptBytesPerSecond else { return options }
        let attempt = attempts.withLock { counts in
            counts[id, default: 0] += 1
            return counts[id]!
        }
        var paced = options
        paced.maxBytesPerSecond = attempt == 1 ? rate : nil
        return paced
    }
}

/// A `Downloader` with an `SFTPTransport` for one sshd, its event stream, and a folder for
/// destinations. Used from one test task.
final class DownloaderHarness {
    let server: SSHServer
    let transport: SFTPTransport
    let downloader: Downloader
    let folder: URL
    private var iterator: AsyncStream<DownloadEvent>.Iterator
    /// Every event seen so far, in order.
    private(set) var seen: [DownloadEvent] = []

    /// - Parameter firstAttemptBytesPerSecond: paces the first attempt of every download.
    init(_ server: SSHServer, configuration: SFTPTransport.Configuration? = nil, firstAttemptBytesPerSecond: Int64? = nil,
         answer: @escaping @Sendable (AuthChallenge) -> AuthDisposition = { _ in .performDefaultHandling }) throws {
        self.server = server
        folder = try TemporaryDirectory("sftp-test").url
        transport = configuration.map { SFTPTransport(configuration: $0) } ?? Fixtures.transport(server)
        var transports = TransportRegistry()
        transports.register(transport, for: "sftp")
        let settings = DownloaderConfiguration(
            maxConcurrentDownloads: 4,
            retryPolicy: RetryPolicy(maxRetries: 3, initialDelay: .milliseconds(100), jitter: 0),
            progressInterval: .milliseconds(50),
            downloadsDirectory: folder)
        downloader = Downloader(configuration: settings, transports: transports, delegate: AnsweringDelegate(answer: answer, firstAttemptBytesPerSecond: firstAttemptBytesPerSecond))
        iterator = downloader.events().makeAsyncIterator()
    }

    /// Ends the downloader and removes the folder.
    func finish() async {
        await downloader.shutdown()
        await transport.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts `name` from the server under `id` into the folder.
    @discardableResult
    func start(_ id: String, _ url: URL, rate: Int64? = nil, destination: URL? = nil) async throws -> URL {
        let options = DownloadOptions(transfer: TransferOptions(maxBytesPerSecond: rate))
        return try await downloader.start(id: id, url: url, destination: destination, options: options)
    }

    /// Reads events until one about `id` satisfies `stop`; returns it. A completed, failed or
    /// cancelled event of `id` that does not satisfy `stop` ends the wait too: it is recorded as
    /// an issue, with every event of `id`, and `nil` is returned (no test waits for an event that
    /// can no longer come).
    @discardableResult
    func next(_ id: String, sourceLocation: SourceLocation = #_sourceLocation,
              where stop: (DownloadEvent) -> Bool) async -> DownloadEvent? {
        while let event = await iterator.next() {
            seen.append(event)
            guard event.id == id else { continue }
            if stop(event) { return event }
            switch event {
            case .completed, .failed, .cancelled:
                Issue.record("\(id) ended while another event was awaited; its events: \(events(of: id))",
                             sourceLocation: sourceLocation)
                return nil
            default:
                break
            }
        }
        return nil
    }

    /// Waits for the end of `id`: completed, failed or cancelled.
    func outcome(_ id: String) async -> DownloadEvent? {
        await next(id) { event in
            switch event {
            case .completed, .failed, .cancelled: true
            default: false
            }
        }
    }

    /// Waits for the end of `id`; its file when it completed, else `nil` and a recorded issue.
    func completedFile(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) async -> URL? {
        let outcome = await outcome(id)
        guard case .completed(_, let file)? = outcome else {
            Issue.record("\(id) did not complete: \(String(describing: outcome))", sourceLocation: sourceLocation)
            return nil
        }
        return file
    }

    /// Waits for the end of `id`; its error when it failed, else `nil` and a recorded issue.
    func failure(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) async -> DownloadError? {
        let outcome = await outcome(id)
        guard case .failed(_, let error, _)? = outcome else {
            Issue.record("\(id) did not fail: \(String(describing: outcome))", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }

    /// Waits for the end of every download in `ids`, whatever the order; returns each one's last event.
    func outcomes(_ ids: Set<String>) async -> [String: DownloadEvent] {
        var ended: [String: DownloadEvent] = [:]
        while ended.count < ids.count, let event = await iterator.next() {
            seen.append(event)
            guard let id = event.id, ids.contains(id) else { continue }
            switch event {
            case .completed, .failed, .cancelled: ended[id] = event
            default: break
            }
        }
        return ended
    }

    /// Waits until `id` has received more than `bytes`.
    func progressed(_ id: String, beyond bytes: Int64) async {
        await next(id) { event in
            if case .progress(_, let progress) = event { return progress.receivedBytes > bytes }
            return false
        }
    }

    /// The events about `id` seen so far.
    func events(of id: String) -> [DownloadEvent] { seen.filter { $0.id == id } }
}
