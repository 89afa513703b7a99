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
            let seen = try await SingleDownload.pausedAndResumed(fixture.server.url("pause.bin"), transport: try FTPTransport(),
                                                                 scheme: "ftp", directory: fixture.directory, name: "pause.bin",
                                                                 content: content, limit: .seconds(60))
            guard case .completed? = seen.last else { return }
            let rest = fixture.server.commands.first { $0.hasPrefix("REST ") }
            let offset = try #require(rest.flatMap { Int($0.dropFirst(5)) }, "\(fixture.server.commands)")
            #expect(offset > 300 * 1024 && offset < content.count)
        }
    }
}
