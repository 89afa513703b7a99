import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// Paces the first attempt of a download so the test can pause it in the middle; later attempts
/// run at full speed.
final class FirstAttemptPacing: DownloaderDelegate {
    let attempts = Mutex(0)

    func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
        let attempt = attempts.withLock { count in
            count += 1
            return count
        }
        var paced = options
        paced.maxBytesPerSecond = attempt == 1 ? 256 * 1024 : nil
        return paced
    }
}

@Suite("Downloader over FTP: pause and resume against vsftpd", .timeLimit(.minutes(2)))
struct FTPPauseResumeTests {
    @Test("a download paused in the middle resumes with REST from the bytes on disk and ends byte-exact, not restarted")
    func pauseThenResume() async throws {
        try await FTPFixture.with { fixture in
            let content = try fixture.serve("pause.bin", size: 2 * 1024 * 1024, seed: 16)
            var transports = TransportRegistry()
            transports.register(try FTPTransport(), for: "ftp")
            let downloader = Downloader(
                configuration: DownloaderConfiguration(
                    retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(20), jitter: 0),
                    progressInterval: .milliseconds(50), downloadsDirectory: fixture.directory.url),
                transports: transports, delegate: FirstAttemptPacing())
            let events = downloader.events()
            let destination = fixture.directory.file("pause.bin")
            try await downloader.start(id: "p", url: fixture.server.url("pause.bin"), destination: destination)
            let seen = try await downloader.eventsActingOnce(events, after: 300 * 1024 + 1, limit: .seconds(60)) { downloader in
                #expect(try await downloader.pause("p") != nil)
                try await downloader.resume("p")
            }
            await downloader.shutdown()
            guard case .completed(_, let file)? = seen.last else {
                Issue.record("did not complete: \(String(describing: seen.last))")
                return
            }
            #expect(try Data(contentsOf: file) == content)
            #expect(!seen.contains { if case .restarted = $0 { true } else { false } })
            let rest = fixture.server.commands.first { $0.hasPrefix("REST ") }
            let offset = try #require(rest.flatMap { Int($0.dropFirst(5)) }, "\(fixture.server.commands)")
            #expect(offset > 300 * 1024 && offset < content.count)
        }
    }
}
