import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// Failures that mean "no way to the server" put a download on hold (interrupted,
/// `waitingForNetwork`) without using its retries; a network change or the slow probe lets one
/// download per server try, and the others follow once it gets through. A refused connection, or
/// a name not resolved while there is a default route, is the server's failure: it uses the
/// retries (docs/states.md, "What a failure means"; a name that does not exist fails at once,
/// see `FailurePolicyTests`). All on the manual clock, with a monitor the test signals.
@Suite("Waiting for the network", .timeLimit(.minutes(1)))
struct NetworkWaitTests {
    static let unreachable = failure(.unreachable, "no route to host")
    static let refused = failure(.refused, "connection refused")
    static let notResolved = failure(.nameNotResolved, "could not resolve host")

    static func failure(_ kind: ConnectionFailure, _ words: String) -> DownloadError {
        var error = DownloadError(.connectionFailed, "could not connect: \(words)")
        error.connectionFailure = kind
        return error
    }

    func harness(_ monitor: TestNetworkMonitor, waits: Bool = true) -> Harness {
        Harness(retry: RetryPolicy(maxRetries: 2, initialDelay: .seconds(1), multiplier: 2, jitter: 0), configure: {
            $0.networkMonitor = monitor
            $0.waitsForNetwork = waits
            $0.networkProbeInterval = .seconds(30)
        })
    }

    /// Signals a change and waits (bounded) until the downloader took it in.
    func signal(_ monitor: TestNetworkMonitor, _ h: Harness) async throws {
        monitor.signal()
        try await poll("the downloader took the change in") { await h.downloader.isNetworkChangePending }
    }

    /// How many onHold events of `id` were recorded.
    func holds(_ h: Harness, _ id: String) -> Int {
        h.recorder.names(of: id).filter { $0.hasPrefix("onHold") }.count
    }

    /// Waits until every id in `ids` is on hold for the network (the onHold event after `from`).
    func onHold(_ h: Harness, _ ids: [String], from: Int) async {
        for id in ids {
            _ = await h.recorder.first(from: from) {
                if case .onHold(id, .waitingForNetwork) = $0 { true } else { false }
            }
            #expect(await h.downloader.info(of: id)?.waitReason == .waitingForNetwork)
        }
    }

    @Test("an outage of many more failures than the retries: one download per server probes at each change, the others follow when it gets through; all complete")
    func outageOutlastsRetries() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor)
        let ids = ["a", "b", "c"]
        var contents: [String: MockContent] = [:]
        for (n, id) in ids.enumerated() {
            contents[id] = h.serve(id, size: 50_000, seed: UInt64(n + 1), chunkSize: 5_000)
            // The first attempt loses its connection half-way (a retry is used), the next cannot
            // connect; "a", first in the queue, is the probe: five more failures (the outage, more
            // than twice the retry budget), then the way is back.
            h.mock.script(h.url(id), attempts: [.drop(at: 20_000)]
                          + Array(repeating: .cannotConnect(Self.unreachable), count: id == "a" ? 6 : 1))
        }
        for id in ids { try await h.downloader.start(id: id, url: h.url(id)) }
        for id in ids { _ = await h.recorder.interruption(of: id) }
        h.clock.advance(by: .seconds(1))
        var mark = 0
        await h.downloader.refresh()
        await onHold(h, ids, from: mark)
        for round in 1...6 {
            // Time passes, well short of the slow probe: nobody tries.
            let before = h.mock.allRequests.count
            h.clock.advance(by: .seconds(20))
            await h.downloader.refresh()
            #expect(h.mock.allRequests.count == before, "no attempt while the network did not change (round \(round))")
            for id in ids { #expect(await h.downloader.state(of: id) == .interrupted) }
            // A change: after the settle time the probe ("a") tries once.
            mark = h.recorder.count
            try await signal(monitor, h)
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
            if round < 6 { await onHold(h, ["a"], from: mark) }
        }
        await h.recorder.state("a", .completed)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()  // the tick after the probe got through lets the others go
        for id in ids {
            await h.recorder.state(id, .completed)
            #expect(h.contents(h.file(id)) == contents[id]?.data)
            #expect(!h.recorder.names(of: id).contains("failed"))
        }
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0] + Array(repeating: 20_000, count: 7),
                "one attempt per change, each from the kept bytes")
        for id in ["b", "c"] {
            #expect(h.mock.requests(for: h.url(id)).map(\.offset) == [0, 20_000, 20_000], "\(id): no attempt during the outage")
        }
        #expect(monitor.subscribers == 1)
        await h.cleanUp()
    }

    @Test("per server, the slow probe tries one download every 30 s; the others follow when it gets through")
    func slowProbePerServer() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor)
        let ids = ["a", "b", "c"]
        var contents: [String: MockContent] = [:]
        for (n, id) in ids.enumerated() {
            contents[id] = h.serve(id, size: 10_000, seed: UInt64(n + 1))
            h.mock.script(h.url(id), attempts: Array(repeating: .cannotConnect(Self.unreachable), count: id == "a" ? 3 : 1))
        }
        for id in ids { try await h.downloader.start(id: id, url: h.url(id)) }
        await onHold(h, ids, from: 0)
        for probe in 1...2 {
            h.clock.advance(by: .seconds(29))
            await h.downloader.refresh()
            #expect(h.mock.allRequests.count == 3 + probe - 1, "not before 30 s")
            // A released attempt runs on its own task: the states catch a probe that went early.
            for id in ids { #expect(await h.downloader.state(of: id) == .interrupted, "not before 30 s") }
            let mark = h.recorder.count
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
            await onHold(h, ["a"], from: mark)
            #expect(h.mock.allRequests.count == 3 + probe, "one probe for the server, not one per download")
        }
        h.clock.advance(by: .seconds(30))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        for id in ids {
            await h.recorder.state(id, .completed)
            #expect(h.contents(h.file(id)) == contents[id]?.data)
        }
        #expect(h.mock.requests(for: h.url("a")).count == 4)
        #expect(h.mock.requests(for: h.url("b")).count == 2)
        await h.cleanUp()
    }

    @Test("a refused connection is the server's failure, not the network's: it uses the retries and the download fails")
    func refusedCountsRetries() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor)
        h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: .cannotConnect(Self.refused), count: 5))
        try await h.downloader.start(id: "a", url: h.url("a"))
        try await failsAfterRetries(h)
        await h.cleanUp()
    }

    @Test("a name not resolved waits for the network without a default route")
    func nameNotResolvedOffline() async throws {
        let monitor = TestNetworkMonitor(defaultRoute: false)
        let h = harness(monitor)
        h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: .cannotConnect(Self.notResolved), count: 5))
        try await h.downloader.start(id: "a", url: h.url("a"))
        await onHold(h, ["a"], from: 0)
        #expect(h.mock.requests(for: h.url("a")).count == 1)
        await h.cleanUp()
    }

    @Test("a connection not made within the connect timeout, while there is a route, is the server's failure: it uses the retries")
    func connectTimeoutCounts() async throws {
        let h = harness(TestNetworkMonitor())
        h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: .cannotConnect(Self.failure(.timedOut, "timed out")), count: 5))
        try await h.downloader.start(id: "a", url: h.url("a"))
        try await failsAfterRetries(h)
        await h.cleanUp()
    }

    /// `a` fails at every attempt and uses its two retries (1 s, 2 s): failed after 3 attempts,
    /// never on hold.
    func failsAfterRetries(_ h: Harness) async throws {
        var mark = 0
        for _ in 0..<2 {
            _ = await h.recorder.interruption(of: "a", from: mark)
            mark = h.recorder.count
            h.clock.advance(by: .seconds(10))
            await h.downloader.refresh()
        }
        let failure = await h.recorder.failure(of: "a")
        #expect(failure.error.code == .connectionFailed)
        #expect(h.mock.requests(for: h.url("a")).count == 3)
        #expect(!h.recorder.names(of: "a").contains { $0.hasPrefix("onHold") })
    }

    @Test("without any change signalled, a waiting download is tried again by the slow probe, once per interval")
    func slowProbe() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor)
        let content = h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: .cannotConnect(Self.unreachable), count: 3))
        try await h.downloader.start(id: "a", url: h.url("a"))
        await onHold(h, ["a"], from: 0)
        for probe in 1...3 {
            h.clock.advance(by: .seconds(29))
            await h.downloader.refresh()
            #expect(h.mock.requests(for: h.url("a")).count == probe, "not before 30 s")
            #expect(await h.downloader.state(of: "a") == .interrupted, "not before 30 s")
            let mark = h.recorder.count
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
            if probe < 3 { await onHold(h, ["a"], from: mark) }
        }
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }

    @Test("pause and resume work on a download waiting for the network")
    func waitAndUserControls() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor)
        h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: [.cannotConnect(Self.unreachable)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await onHold(h, ["a"], from: 0)
        #expect(await h.downloader.info(of: "a")?.lastErrorCode == .connectionFailed)
        _ = try await h.downloader.pause("a")
        #expect(await h.downloader.info(of: "a")?.waitReason == nil)
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == MockContent.seeded(seed: 1, size: 10_000).data)
        await h.cleanUp()
    }

    @Test("with waitsForNetwork off, unreachable servers use the retries and the download fails")
    func offCountsRetries() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor, waits: false)
        h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: .cannotConnect(Self.unreachable), count: 5))
        try await h.downloader.start(id: "a", url: h.url("a"))
        try await failsAfterRetries(h)
        await h.cleanUp()
    }

    @Test("a downloader dropped without shutdown stops listening: the monitor's sequence ends")
    func droppedDownloaderStopsListening() async throws {
        let monitor = TestNetworkMonitor()
        do {
            let h = harness(monitor)
            _ = h.serve("a", size: 10_000)
            h.mock.script(h.url("a"), attempts: [.cannotConnect(Self.unreachable)])
            try await h.downloader.start(id: "a", url: h.url("a"))
            await onHold(h, ["a"], from: 0)
            try await poll("the downloader listens") { monitor.subscribers == 1 }
            #expect(monitor.ended == 0)
            try? FileManager.default.removeItem(at: h.directory)
        }
        try await poll("the monitor's sequence ended") { monitor.ended == 1 }
    }
}
