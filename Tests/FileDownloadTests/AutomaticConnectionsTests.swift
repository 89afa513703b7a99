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

    /// Runs `name` with automatic connections to the end; returns the most connections seen at once.
    static func run(_ h: Harness, _ name: String) async throws -> Int {
        try await h.downloader.start(id: name, url: h.url(name), options: SegmentTests.options(connections: nil))
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
}
