import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// The per-host connection cap and throttles through the Downloader, on the manual clock.
@Suite("Connections per host through the downloader", .timeLimit(.minutes(1)))
struct HostCapTests {
    @Test("a download whose host is at its cap waits without using a slot or a retry; another host's runs; it starts when a connection closes")
    func waitsForCap() async throws {
        let (h, counter) = Harness.counting(maxConcurrent: 4)
        try await h.downloader.setMaxConnections(1, forHost: "files")
        h.serve("a", size: 1000, chunkSize: 100)
        h.mock.script(h.url("a"), attempts: [.stall(at: 100)])
        h.serve("b", size: 1000)
        let other = URL(string: "mock://elsewhere/c")!
        h.mock.serve(other, MockResource(MockContent.seeded(seed: 3, size: 1000)))
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.parked(2)
        try await h.downloader.start(id: "b", url: h.url("b"))
        try await h.downloader.start(id: "c", url: other, destination: h.file("c"))
        await h.recorder.state("c", .completed)
        #expect(await h.downloader.state(of: "b") == .waiting)
        #expect(h.mock.requests(for: h.url("b")).isEmpty)
        try await h.downloader.pause("a")
        await h.recorder.state("b", .completed)
        #expect(await h.downloader.info(of: "b")?.attempts == 1)
        #expect(!h.recorder.states(of: "b").contains(.interrupted))
        #expect(counter.order == ["a", "c", "b"])
        await h.cleanUp()
    }

    @Test("raising the cap while it runs starts the waiting download at once")
    func raisingTheCap() async throws {
        let h = Harness(maxConcurrent: 4, configure: { $0.maxConnectionsPerHost = 1 })
        #expect(await h.downloader.maxConnections(forHost: "files") == 1)
        h.serve("a", size: 1000, chunkSize: 100)
        h.mock.script(h.url("a"), attempts: [.stall(at: 100)])
        h.serve("b", size: 1000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.parked(2)
        try await h.downloader.start(id: "b", url: h.url("b"))
        #expect(await h.downloader.state(of: "b") == .waiting)
        try await h.downloader.setMaxConnections(2, forHost: "FILES")
        await h.recorder.state("b", .completed)
        #expect(await h.downloader.state(of: "a") == .downloading)
        await #expect(throws: DownloadError.self) { try await h.downloader.setMaxConnections(0, forHost: "files") }
        #expect(await h.downloader.maxConnections(forHost: "files") == 2)
        try await h.downloader.pause("a")
        await h.cleanUp()
    }

    @Test("503 with Retry-After 30 s: the retry comes at 30 s, not earlier, and no other download opens a connection to that host meanwhile; then the retry goes first")
    func retryAfterHoldsTheHost() async throws {
        let (h, counter) = Harness.counting(maxConcurrent: 4, retry: RetryPolicy(maxRetries: 3, initialDelay: .seconds(1), jitter: 0))
        let a = h.serve("a", size: 1000)
        let b = h.serve("b", size: 1000, seed: 2)
        h.mock.script(h.url("a"), attempts: [.status(503, retryAfter: .seconds(30))])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (_, retryIn) = await h.recorder.interruption(of: "a")
        #expect(retryIn == .seconds(30))
        try await h.downloader.start(id: "b", url: h.url("b"))
        h.clock.advance(by: .milliseconds(29_999))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .interrupted)
        #expect(await h.downloader.state(of: "b") == .waiting)
        #expect(h.mock.requests(for: h.url("a")).count == 1)
        #expect(h.mock.requests(for: h.url("b")).isEmpty)
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        await h.recorder.state("b", .completed)
        #expect(h.contents(h.file("a")) == a.data)
        #expect(h.contents(h.file("b")) == b.data)
        #expect(await h.downloader.info(of: "b")?.attempts == 1)
        #expect(counter.order == ["a", "a", "b"])  // one connection after the throttle: a's retry, then b
        await h.cleanUp()
    }

    @Test("after a 429 the host gets one connection at a time (the halved target)")
    func throttleNarrows() async throws {
        let h = Harness(maxConcurrent: 4)
        h.serve("d0", size: 1000)
        h.mock.script(h.url("d0"), attempts: [.status(429)])
        try await h.downloader.start(id: "d0", url: h.url("d0"))
        _ = await h.recorder.interruption(of: "d0")
        try await startStalled(h, ["d1", "d2", "d3"])
        await h.recorder.state("d1", .downloading)
        #expect(await h.downloader.state(of: "d2") == .waiting)
        #expect(await h.downloader.state(of: "d3") == .waiting)
        try await h.downloader.pause("d1")
        await h.recorder.state("d2", .downloading)
        #expect(await h.downloader.state(of: "d3") == .waiting)
        for id in ["d0", "d2", "d3"] { try await h.downloader.pause(id) }
        await h.cleanUp()
    }

    /// Starts a download of 1000 bytes to the host for each of `ids`, stalling at byte 100.
    func startStalled(_ h: Harness, _ ids: [String]) async throws {
        for (i, id) in ids.enumerated() {
            h.serve(id, size: 1000, seed: UInt64(i + 2), chunkSize: 100)
            h.mock.script(h.url(id), attempts: [.stall(at: 100)])
            try await h.downloader.start(id: id, url: h.url(id))
        }
    }

    /// The downloads of `ids` now downloading.
    func downloading(_ h: Harness, _ ids: [String]) async -> Int {
        var n = 0
        for id in ids where await h.downloader.state(of: id) == .downloading { n += 1 }
        return n
    }

    @Test("after one 503, downloads to the host get back to its cap within a bounded time (one more per 2 s)")
    func recoversAfterThrottle() async throws {
        let h = Harness(maxConcurrent: 8, retry: RetryPolicy(maxRetries: 3, initialDelay: .seconds(3600), jitter: 0))
        h.serve("d0", size: 1000)
        h.mock.script(h.url("d0"), attempts: [.status(503)])
        try await h.downloader.start(id: "d0", url: h.url("d0"))
        _ = await h.recorder.interruption(of: "d0")
        let ids = (1...12).map { "d\($0)" }
        try await startStalled(h, ids)
        #expect(await downloading(h, ids) == 1)
        for window in 1...7 {  // 8 connections after 7 windows of 2 s
            h.clock.advance(by: .seconds(2))
            await h.downloader.refresh()
            #expect(await downloading(h, ids) == 1 + window)
        }
        h.clock.advance(by: .seconds(2))
        await h.downloader.refresh()
        #expect(await downloading(h, ids) == 8)  // the cap
        for id in ["d0"] + ids { try await h.downloader.pause(id) }
        await h.cleanUp()
    }

    @Test("one dropped connection does not narrow the host: downloads behind it start up to the cap")
    func oneDropIsNoThrottle() async throws {
        let h = Harness(maxConcurrent: 4)
        h.serve("d0", size: 1000, chunkSize: 100)
        h.mock.script(h.url("d0"), attempts: [.drop(at: 300)])
        try await h.downloader.start(id: "d0", url: h.url("d0"))
        _ = await h.recorder.interruption(of: "d0")  // its retry waits 1 s on the manual clock
        let ids = (1...4).map { "d\($0)" }
        try await startStalled(h, ids)
        #expect(await downloading(h, ids) == 4)
        for id in ["d0"] + ids { try await h.downloader.pause(id) }
        await h.cleanUp()
    }
}
