import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// Failures that mean "no way to the server" put a download on hold (interrupted,
/// `waitingForNetwork`) without using its retries; a network change or the slow probe lets it go.
/// All on the manual clock, with a monitor the test signals.
@Suite("Waiting for the network", .timeLimit(.minutes(1)))
struct NetworkWaitTests {
    static let refused = DownloadError(.connectionFailed, "could not connect: connection refused")

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
        let deadline = ContinuousClock.now + .seconds(10)
        while await !h.downloader.isNetworkChangePending {
            guard ContinuousClock.now < deadline else { throw TestFailure("the downloader did not take the change in") }
            try await Task.sleep(for: .milliseconds(5))
        }
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

    @Test("refused connections, many more than the retries: the downloads wait, try again after a change, and complete")
    func outageOutlastsRetries() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor)
        let ids = ["a", "b", "c"]
        var contents: [String: MockContent] = [:]
        for (n, id) in ids.enumerated() {
            contents[id] = h.serve(id, size: 50_000, seed: UInt64(n + 1), chunkSize: 5_000)
            // The first attempt loses its connection half-way (a retry is used); then six refusals
            // (the outage, three times the retry budget), then the network is back.
            h.mock.script(h.url(id), attempts: [.drop(at: 20_000)]
                          + Array(repeating: MockAttempt(fault: .error(at: 20_000, Self.refused)), count: 6))
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
            // A change: after the settle time every waiting download tries once.
            mark = h.recorder.count
            try await signal(monitor, h)
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
            if round < 6 { await onHold(h, ids, from: mark) }
        }
        for id in ids {
            await h.recorder.state(id, .completed)
            #expect(h.contents(h.file(id)) == contents[id]?.data)
            #expect(!h.recorder.names(of: id).contains("failed"))
            #expect(h.mock.requests(for: h.url(id)).map(\.offset) == [0] + Array(repeating: 20_000, count: 7),
                    "one attempt per change, each from the kept bytes")
        }
        #expect(monitor.subscribers == 1)
        await h.cleanUp()
    }

    @Test("without any change signalled, a waiting download is tried again by the slow probe, once per interval")
    func slowProbe() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor)
        let content = h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: MockAttempt(fault: .error(at: 0, Self.refused)), count: 3))
        try await h.downloader.start(id: "a", url: h.url("a"))
        await onHold(h, ["a"], from: 0)
        for probe in 1...3 {
            h.clock.advance(by: .seconds(29))
            await h.downloader.refresh()
            #expect(h.mock.requests(for: h.url("a")).count == probe, "not before 30 s")
            let mark = h.recorder.count
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
            if probe < 3 { await onHold(h, ["a"], from: mark) }
        }
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }

    @Test("a timeout (no byte for the request timeout) waits for the network too; pause and resume still work")
    func timeoutWaitsAndUserControls() async throws {
        let monitor = TestNetworkMonitor()
        let h = Harness(transfer: TransferOptions(requestTimeout: .seconds(10)), configure: { $0.networkMonitor = monitor })
        try await h.stalled()
        await h.downloader.refresh()  // the tick sees the bytes: the idle time counts from here
        h.clock.advance(by: .seconds(10))
        await h.downloader.refresh()
        await onHold(h, ["a"], from: 0)
        #expect(await h.downloader.info(of: "a")?.lastErrorCode == .timedOut)
        _ = try await h.downloader.pause("a")
        #expect(await h.downloader.info(of: "a")?.waitReason == nil)
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == MockContent.seeded(seed: 1, size: 10_000).data)
        await h.cleanUp()
    }

    @Test("with waitsForNetwork off, refusals use the retries and the download fails")
    func offCountsRetries() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor, waits: false)
        h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: MockAttempt(fault: .error(at: 0, Self.refused)), count: 5))
        try await h.downloader.start(id: "a", url: h.url("a"))
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
        await h.cleanUp()
    }
}
