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

    @Test("a refusal pauses the download with the whole file in staging and its error; resume asks again, fetches nothing again and moves it")
    func refusalPauses() async throws {
        let delegate = HoldingBack([DownloadError(.store, "the lease is not confirmed")])
        let h = Harness(delegate: delegate)
        let content = h.serve("a", size: 40_000, chunkSize: 4_000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .paused)
        #expect(!FileManager.default.fileExists(atPath: h.file("a").path), "nothing at the destination")
        #expect(FileValidation.size(h.file("a").path + ".part") == 40_000, "the staging file kept whole")
        let info = await h.downloader.info(of: "a")
        #expect(info?.lastErrorCode == .store && info?.lastError?.contains("the lease is not confirmed") == true)
        #expect(info?.attempts == 1)
        #expect(h.recorder.events(of: "a").contains { if case .paused(_, let data) = $0 { data?.bytesOnDisk == 40_000 } else { false } })
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.bytes(in: 0..<40_000))
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0, 40_000], "the second asks from the end")
        #expect(delegate.asked == [h.file("a"), h.file("a")])
        await h.cleanUp()
    }
}
