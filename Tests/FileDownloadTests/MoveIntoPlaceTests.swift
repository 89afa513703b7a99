import FileDownload
import FileDownloadMock
import Foundation
import Synchronization
import Testing

/// The delegate's last word before a finished file is moved into place
/// (`DownloaderDelegate.download(_:willMoveTo:)`).
@Suite("Moving into place: the delegate may hold a finished file back", .timeLimit(.minutes(1)))
struct MoveIntoPlaceTests {
    /// Throws `errors` in turn, one per question, then lets the file move; records each question.
    final class HoldingBack: DownloaderDelegate {
        private let state: Mutex<(errors: [DownloadError], asked: [URL])>

        init(_ errors: [DownloadError]) { state = Mutex((errors, [])) }

        var asked: [URL] { state.withLock { $0.asked } }

        func download(_ id: String, willMoveTo destination: URL) async throws {
            let error = state.withLock { s -> DownloadError? in
                s.asked.append(destination)
                return s.errors.isEmpty ? nil : s.errors.removeFirst()
            }
            if let error { throw error }
        }
    }

    @Test("a retryable refusal keeps the whole file in staging; the next attempt fetches no byte again and moves it")
    func retryableRefusal() async throws {
        let delegate = HoldingBack([DownloadError(.store, "the lease is not confirmed", isRetryable: true)])
        let h = Harness(delegate: delegate)
        let content = h.serve("a", size: 40_000, chunkSize: 4_000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (error, retryIn) = await h.recorder.interruption(of: "a")
        #expect(error.code == .store && error.message == "the lease is not confirmed")
        #expect(retryIn == .seconds(1))
        #expect(!FileManager.default.fileExists(atPath: h.file("a").path), "nothing at the destination")
        #expect(FileValidation.size(h.file("a").path + ".part") == 40_000, "the staging file kept whole")
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.bytes(in: 0..<40_000))
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0, 40_000], "the second asks from the end")
        #expect(delegate.asked == [h.file("a"), h.file("a")])
        await h.cleanUp()
    }

    @Test("a refusal that is not retryable fails the download with its error, file kept; resuming asks again")
    func finalRefusal() async throws {
        let delegate = HoldingBack([DownloadError(.invalidDestination, "the directory was replaced", isRetryable: false)])
        let h = Harness(delegate: delegate)
        let content = h.serve("a", size: 10_000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (error, resumeData) = await h.recorder.failure(of: "a")
        #expect(error.code == .invalidDestination && error.message == "the directory was replaced")
        #expect(resumeData?.bytesOnDisk == 10_000)
        #expect(!FileManager.default.fileExists(atPath: h.file("a").path))
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.bytes(in: 0..<10_000))
        #expect(delegate.asked.count == 2)
        await h.cleanUp()
    }
}
