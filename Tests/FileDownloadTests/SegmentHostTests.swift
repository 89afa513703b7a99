import FileDownload
import FileDownloadMock
import Foundation
import Synchronization
import Testing

/// Segments and the per-host governor through the `Downloader`: a download's extra connections
/// count against its host's cap, follow the adaptive target when the number is automatic, and
/// a throttle seen by one of them holds the host. On the mock transport and the manual clock.
@Suite("Segments under the per-host connection governor", .timeLimit(.minutes(2)))
struct SegmentHostTests {
    /// The most connections of one URL seen running at once.
    final class Most: Sendable {
        private let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
        func note(_ n: Int) { value.withLock { $0 = max($0, n) } }
    }

    /// A harness that splits as ``SegmentTests`` does, with at most `cap` connections per host.
    static func harness(cap: Int) -> Harness {
        Harness(configure: {
            SegmentTests.configure(&$0)
            $0.maxConnectionsPerHost = cap
        })
    }

    /// Moves the clock in lockstep with the running requests for `urls`
    /// (``SegmentTests/lockstep(_:_:)``), noting how many run at once, until cancelled.
    static func pump(_ h: Harness, tracking urls: URL...) -> (Task<Void, Never>, Most) {
        let most = Most()
        let task = Task {
            while !Task.isCancelled {
                most.note(await SegmentTests.lockstep(h, urls))
                await Task.yield()
            }
        }
        return (task, most)
    }

    @Test("a download's segments count against its host's cap: at most the cap run, and another download to the host waits until they close")
    func segmentsCountAgainstTheCap() async throws {
        let h = Self.harness(cap: 3)
        let content = SegmentTests.serveBig(h, "big")
        let small = h.serve("small", size: 1000, seed: 2)
        try await h.downloader.start(id: "big", url: h.url("big"), options: SegmentTests.options(connections: 4))
        await h.parked(4)  // the tick loop and three connections: the cap, not the four asked for
        try await h.downloader.start(id: "small", url: h.url("small"))
        #expect(await h.downloader.state(of: "small") == .waiting)
        #expect(h.mock.requests(for: h.url("small")).isEmpty)
        let (pump, most) = Self.pump(h, tracking: h.url("big"))
        await h.recorder.state("big", .completed)
        await h.recorder.state("small", .completed)
        pump.cancel()
        #expect(most.count == 3)
        #expect(h.contents(h.file("big")) == content.data)
        #expect(h.contents(h.file("small")) == small.data)
        #expect(await h.downloader.info(of: "small")?.attempts == 1)
        await h.cleanUp()
    }

    @Test("two segmented downloads to one host never hold more connections together than its cap")
    func twoDownloadsShareTheCap() async throws {
        let h = Self.harness(cap: 5)
        let a = SegmentTests.serveBig(h, "a")
        let b = SegmentTests.serveBig(h, "b", seed: 2)
        let (pump, most) = Self.pump(h, tracking: h.url("a"), h.url("b"))
        try await h.downloader.start(id: "a", url: h.url("a"), options: SegmentTests.options(connections: 4))
        try await h.downloader.start(id: "b", url: h.url("b"), options: SegmentTests.options(connections: 4))
        await h.recorder.state("a", .completed)
        await h.recorder.state("b", .completed)
        pump.cancel()
        #expect(most.count == 5)
        #expect(h.contents(h.file("a")) == a.data)
        #expect(h.contents(h.file("b")) == b.data)
        await h.cleanUp()
    }

    @Test("an automatic number of connections starts at the host's first target (2) and doubles while throughput grows, up to the host's cap (8)")
    func automaticConnectionsGrow() async throws {
        let h = Harness(progressInterval: .milliseconds(500), configure: SegmentTests.configure)
        let size: Int64 = 8 << 20  // long enough (about 16 s on the clock) for two windows of growth and more
        // 160 KiB/s per connection on the manual clock: each added connection adds as much.
        let content = h.serve("big", size: size, chunkSize: 16 << 10, chunkDelay: .milliseconds(100))
        try await h.downloader.start(id: "big", url: h.url("big"), options: SegmentTests.options(connections: nil))
        let (pump, most) = Self.pump(h, tracking: h.url("big"))
        await h.recorder.state("big", .completed)
        pump.cancel()
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        // Cut in two as the head arrived (four connections would have cut at a quarter).
        #expect(requests.count > 2 && requests[1].offset > size / 3, "\(requests.map { ($0.offset, $0.end) })")
        #expect(most.count == 8)  // the cap (automaticConnections is 16)
        await h.cleanUp()
    }

    @Test("a 503 with Retry-After on an extra connection holds the host: another download to it starts only after the hold")
    func segmentThrottleHoldsTheHost() async throws {
        let h = Harness(progressInterval: .seconds(1), configure: SegmentTests.configure)
        let content = SegmentTests.serveBig(h, "big")
        let small = h.serve("small", size: 1000, seed: 2)
        h.mock.script(h.url("big"), attempts: [.normal, .status(503, retryAfter: .seconds(30))])
        try await h.downloader.start(id: "big", url: h.url("big"), options: SegmentTests.options(connections: 4))
        let pump = SegmentTests.pump(h)
        await h.recorder.state("big", .completed)
        pump.cancel()
        #expect(h.contents(h.file("big")) == content.data)
        #expect(h.mock.requests(for: h.url("big"))[1].outcome == .failed(.badStatus))
        #expect(h.clock.now.offset < .seconds(29))  // the hold did not hold up the download's own ranges
        try await h.downloader.start(id: "small", url: h.url("small"))
        h.clock.advance(to: ManualClock.Instant(offset: .seconds(29)))
        await h.parked(1)  // the tick at 29 s went by and sleeps again
        #expect(await h.downloader.state(of: "small") == .waiting)
        #expect(h.mock.requests(for: h.url("small")).isEmpty)
        h.clock.advance(to: ManualClock.Instant(offset: .seconds(31)))
        await h.recorder.state("small", .completed)
        #expect(h.contents(h.file("small")) == small.data)
        await h.cleanUp()
    }
}
