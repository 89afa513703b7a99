import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// An attempt that ends with no bytes leaves no empty `<destination>.part` behind; an attempt
/// that ends with bytes keeps them for the resume.
@Suite("Staging files of attempts that end with no bytes", .timeLimit(.minutes(1)))
struct StagingFileCleanupTests {
    func part(_ h: Harness, _ id: String) -> String { h.file(id).path + ".part" }

    @Test("a refused attempt (404) leaves no staging file")
    func refused() async throws {
        let h = Harness()
        h.serve("a", size: 1000)
        h.mock.script(h.url("a"), attempts: [.status(404)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        #expect(try await h.downloader.outcome(of: "a").state == .failed)
        #expect(!FileManager.default.fileExists(atPath: part(h, "a")))
        await h.cleanUp()
    }

    @Test("a failure before the first byte leaves no staging file, also when a retry is due")
    func failedBeforeTheBody() async throws {
        let h = Harness()
        h.serve("a", size: 1000)
        h.serve("b", size: 1000)
        h.mock.script(h.url("a"), attempts: [.error(at: 0, DownloadError(.permissionDenied, "no"))])
        h.mock.script(h.url("b"), attempts: [.drop(at: 0)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        try await h.downloader.start(id: "b", url: h.url("b"))
        #expect(try await h.downloader.outcome(of: "a").state == .failed)
        let (_, retryIn) = await h.recorder.interruption(of: "b")
        #expect(retryIn != nil)
        await h.downloader.settle()
        #expect(!FileManager.default.fileExists(atPath: part(h, "a")))
        #expect(!FileManager.default.fileExists(atPath: part(h, "b")))
        await h.cleanUp()
    }

    @Test("a download paused before its first byte leaves no staging file and resumes from zero")
    func pausedAtZero() async throws {
        let h = Harness()
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 0)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.parked(2)
        _ = try await h.downloader.pause("a")
        #expect(!FileManager.default.fileExists(atPath: part(h, "a")))
        try await h.downloader.resume("a")
        guard case .completed(let file) = try await h.downloader.outcome(of: "a") else { throw CocoaError(.fileNoSuchFile) }
        #expect(h.contents(file) == content.data)
        await h.cleanUp()
    }

    @Test("a failure with bytes on disk keeps them in the staging file")
    func failureWithBytesKeepsThem() async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 0))
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.drop(at: 1500)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        guard case .failed(_, let data) = try await h.downloader.outcome(of: "a") else { throw CocoaError(.fileNoSuchFile) }
        #expect(data?.bytesOnDisk == 1500)
        #expect(FileValidation.size(part(h, "a")) == 1500)
        await h.cleanUp()
    }
}
