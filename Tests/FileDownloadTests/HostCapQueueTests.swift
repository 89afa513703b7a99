import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// A long queue to one capped host: its own suite, with a bound that fits a full CI run on two
/// busy cores (0.4 s alone; a mock download took 44 s there while the fleet tests ran).
@Suite("A long queue to a capped host", .timeLimit(.minutes(10)))
struct HostCapQueueTests {
    @Test("1,000 downloads queued to a host capped at 2 all run and complete byte-exact, and a download to another host queued behind them too")
    func longQueueToCappedHost() async throws {
        let h = Harness(maxConcurrent: 8, configure: {
            $0.maxConnectionsPerHost = 2
            $0.synchronizesFiles = false
        })
        let content = h.serve("f", size: 100, seed: 5)
        let ids = (0..<1_000).map { "q\($0)" }
        for id in ids { try await h.downloader.start(id: id, url: h.url("f"), destination: h.file(id)) }
        let other = URL(string: "mock://elsewhere/o")!
        h.mock.serve(other, MockResource(MockContent.seeded(seed: 3, size: 100)))
        try await h.downloader.start(id: "o", url: other, destination: h.file("o"))
        for id in ids + ["o"] {
            guard case .completed = try await h.downloader.outcome(of: id) else {
                Issue.record("\(id) did not complete")
                break
            }
        }
        #expect(h.contents(h.file("q999")) == content.data)
        await h.cleanUp()
    }
}
