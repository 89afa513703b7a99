import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// Signed links that expire, through `Downloader` and the fault server: its links are valid for
/// 2 s from their first request, a request with an expired one answers 403, and a response under way stops when its link
/// expires. The delegate signs a fresh link whenever asked.
@Suite("Expiring links over HTTP (signed URLs)", .serialized, .timeLimit(.minutes(2)))
struct ExpiringLinkTests {
    /// Signs a fresh 2-second link to `path` whenever asked; records the questions.
    final class Signer: DownloaderDelegate {
        let server: FaultServer
        let path: String
        let query: String
        private let questions = Mutex<[URLRefreshReason]>([])

        init(_ server: FaultServer, path: String, query: String) {
            self.server = server
            self.path = path
            self.query = query
        }

        var asked: [URLRefreshReason] { questions.withLock { $0 } }

        func freshURL(forID id: String, current: URL, reason: URLRefreshReason) async -> URL? {
            questions.withLock { $0.append(reason) }
            return try? await server.sign(path, ttl: 2, query)
        }
    }

    /// Downloads the signed link to `path` (sent at `rate` bytes per second) with `signer` as the
    /// delegate; returns the outcome and the events.
    func download(_ fx: HTTPFixture, _ path: String, rate: Int, signer: Signer) async throws
        -> (outcome: DownloadOutcome, events: [DownloadEvent], file: URL) {
        var transports = TransportRegistry()
        transports.register(try HTTPTransport(configuration: .init(proxy: .none)), for: "http")
        let downloader = Downloader(
            configuration: DownloaderConfiguration(
                retryPolicy: RetryPolicy(maxRetries: 5, initialDelay: .milliseconds(100), jitter: 0),
                progressInterval: .milliseconds(50), downloadsDirectory: fx.directory.url, synchronizesFiles: false),
            transports: transports, delegate: signer)
        let log = Mutex<[DownloadEvent]>([])
        downloader.observe { event in log.withLock { $0.append(event) } }
        let file = fx.directory.file("signed-\(UUID().uuidString.prefix(8)).bin")
        try await downloader.start(id: "s", url: try await fx.fault.sign(path, ttl: 2, "rate=\(rate)"), destination: file)
        let outcome = try await downloader.outcome(of: "s")
        await downloader.settle()
        await downloader.shutdown()
        return (outcome, log.withLock { $0 }, file)
    }

    @Test("a slow download through 2-second links completes with refreshes, each continuing from the bytes: nothing fetched twice beyond what was in flight")
    func refreshesKeepBytes() async throws {
        try await HTTPFixture.with(fault: true) { fx in
            let size = 1_000_000
            let sha = try TestFiles.write(fx.served.appendingPathComponent("signed.bin"), size: size, seed: 7)
            let rate = 200_000  // about 5 s: the link expires two or three times on the way
            let signer = Signer(fx.fault, path: "signed.bin", query: "rate=\(rate)")
            let before = try fx.fault.bodyBytesSent()
            let run = try await download(fx, "signed.bin", rate: rate, signer: signer)
            let sent = try fx.fault.bodyBytesSent() - before
            #expect(run.outcome.isCompleted, "\(run.outcome)")
            #expect(try TestFiles.sha256(run.file) == sha)
            let refreshes = signer.asked.count
            #expect(refreshes >= 2, "\(signer.asked)")
            #expect(signer.asked.allSatisfy { $0 == .refused(statusCode: 403) })
            #expect(!run.events.contains { if case .restarted = $0 { true } else { false } })
            #expect(run.events.filter { if case .urlChanged = $0 { true } else { false } }.count == refreshes)
            // Each expiry closes a response; what it had sent reached the file, so the only bytes
            // sent twice are ones in flight at a cut (64 KiB a cut is far more than that).
            #expect(sent <= Int64(size + refreshes * 65_536), "\(sent) bytes sent for a file of \(size)")
            print("expiring links: \(refreshes) refreshes, \(sent) bytes sent for \(size)")
        }
    }

    @Test("a fresh link to a different file starts from zero (no splice); the result is the new file byte-exact")
    func differentFileRestarts() async throws {
        try await HTTPFixture.with(fault: true) { fx in
            let rate = 200_000
            _ = try TestFiles.write(fx.served.appendingPathComponent("first.bin"), size: 800_000, seed: 3)
            let other = try TestFiles.write(fx.served.appendingPathComponent("other.bin"), size: 150_000, seed: 4)
            let signer = Signer(fx.fault, path: "other.bin", query: "rate=\(rate)")
            let run = try await download(fx, "first.bin", rate: rate, signer: signer)
            #expect(run.outcome.isCompleted, "\(run.outcome)")
            #expect(try TestFiles.sha256(run.file) == other)
            #expect(TestFiles.size(run.file) == 150_000)
            #expect(run.events.contains { if case .restarted("s", .validatorChanged) = $0 { true } else { false } })
            #expect(!signer.asked.isEmpty)
        }
    }
}
