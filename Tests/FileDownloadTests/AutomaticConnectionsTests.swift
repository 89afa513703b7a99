import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// Automatic connections through the `Downloader` (docs/connections.md): the count doubles while
/// the rate grows with it, what it reached is remembered per origin in the store, and the next
/// download to that origin starts there. On the mock transport and the manual clock.
@Suite("Automatic connections: growth and the memory per host", .timeLimit(.minutes(2)))
struct AutomaticConnectionsTests {
    static let size: Int64 = 8 << 20
    /// The harness's URLs' origin.
    static let origin = "mock://files:-1"

    /// A harness over `store` that splits as ``SegmentTests`` does, with a tick every 500 ms.
    static func harness(store: InMemoryDownloadStore) -> Harness {
        Harness(progressInterval: .milliseconds(500), store: store, configure: SegmentTests.configure)
    }

    /// Serves `name`: 160 KiB/s per connection on the manual clock, so that every added
    /// connection adds as much.
    static func serve(_ h: Harness, _ name: String, seed: UInt64 = 1) -> MockContent {
        h.serve(name, size: size, seed: seed, chunkSize: 16 << 10, chunkDelay: .milliseconds(100))
    }

    /// Runs `name` with `connections` (`nil`: automatic) to the end; returns the most connections
    /// seen at once.
    static func run(_ h: Harness, _ name: String, connections: Int? = nil) async throws -> Int {
        try await h.downloader.start(id: name, url: h.url(name), options: SegmentTests.options(connections: connections))
        let (pump, most) = SegmentHostTests.pump(h, tracking: h.url(name))
        await h.recorder.state(name, .completed)
        pump.cancel()
        return most.count
    }

    @Test("the count an automatic download reached is remembered for its origin; the next download to it, by another downloader over the store, is cut for that count at once")
    func nextDownloadStartsAtTheRememberedCount() async throws {
        let store = InMemoryDownloadStore()
        let first = Self.harness(store: store)
        let content = Self.serve(first, "a")
        #expect(try await Self.run(first, "a") == 8)
        #expect(first.contents(first.file("a")) == content.data)
        let cutFirst = first.mock.requests(for: first.url("a"))
        #expect(cutFirst.count > 2 && cutFirst[1].offset > Self.size / 3)  // cut in two as its head arrived
        await first.cleanUp()
        #expect(await store.connectionsByOrigin == [Self.origin: 8])

        let second = Self.harness(store: store)
        let other = Self.serve(second, "b", seed: 2)
        #expect(try await Self.run(second, "b") == 8)
        #expect(second.contents(second.file("b")) == other.data)
        let requests = second.mock.requests(for: second.url("b"))
        // Cut in eight as the head arrived: the second range starts an eighth in (less its overlap window).
        #expect(requests.count >= 8 && requests[1].offset <= Self.size / 8 && requests[1].offset > Self.size / 16,
                "\(requests.map { ($0.offset, $0.end) })")
        await second.cleanUp()
    }

    @Test("while a download that asked for its number of connections runs to the host, an automatic one beside it grows but teaches the host nothing")
    func fixedConnectionsBesideTeachNothing() async throws {
        let store = InMemoryDownloadStore()
        let h = Self.harness(store: store)
        let content = Self.serve(h, "a")
        let fixed = h.serve("fixed", size: 4 << 20, seed: 3, chunkSize: 16 << 10, chunkDelay: .milliseconds(100))
        try await h.downloader.start(id: "a", url: h.url("a"), options: SegmentTests.options(connections: nil))
        await h.parked(3)  // the tick loop and a's two connections: cut in two
        try await h.downloader.start(id: "fixed", url: h.url("fixed"), options: SegmentTests.options(connections: 1))
        let (pump, _) = SegmentHostTests.pump(h, tracking: h.url("a"), h.url("fixed"))
        await h.recorder.state("a", .completed)
        await h.recorder.state("fixed", .completed)
        pump.cancel()
        #expect(h.mock.requests(for: h.url("a")).count > 2)  // it grew
        #expect(h.contents(h.file("a")) == content.data)
        #expect(h.contents(h.file("fixed")) == fixed.data)
        await h.cleanUp()
        #expect(await store.connectionsByOrigin.isEmpty)
    }
}
