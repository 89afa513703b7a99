import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// Removing a download: its staging file goes with it, unless a caller that continues it under
/// another download (a fleet worker claiming the same queued download again) keeps it.
@Suite("Removing a download and its staging file")
struct RemoveKeepingStagingTests {
    @Test("remove deletes a paused download's staging file; keepingStagingFile keeps it, and a new download continues from its bytes")
    func keepsOnlyWhenAsked() async throws {
        let h = Harness()
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        let part = h.file("a").path + ".part"
        for keep in [false, true] {
            h.mock.script(h.url("a"), attempts: [.stall(at: 1000)])
            let id = keep ? "kept" : "dropped"
            try await h.downloader.start(id: id, url: h.url("a"), destination: h.file("a"))
            await h.parked(2)
            let data = try #require(try await h.downloader.pause(id))
            #expect(data.bytesOnDisk == 1000)
            try await h.downloader.remove(id, keepingStagingFile: keep)
            #expect(await h.downloader.state(of: id) == nil)
            #expect(FileManager.default.fileExists(atPath: part) == keep, "\(id)")
            guard keep else { continue }
            var again = data
            again.id = "again"
            try await h.downloader.start(id: "again", resumeData: again)
            await h.recorder.state("again", .completed)
            #expect(h.contents(h.file("a")) == content.data)
            #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0, 0, 1000])
        }
        await h.cleanUp()
    }
}
