import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// What a failure means (docs/states.md, "What a failure means"), through the `Downloader` on the
/// manual clock: a silent server is a counted retry that resumes at its offset, a name that does
/// not exist fails at once, and every wait (for a retry, for the network) has an end.
@Suite("What a failure means", .timeLimit(.minutes(1)))
struct FailurePolicyTests {
    static let retry = RetryPolicy(maxRetries: 2, initialDelay: .seconds(1), multiplier: 2, jitter: 0)

    func harness(_ monitor: TestNetworkMonitor, retry: RetryPolicy = Self.retry,
                 transfer: TransferOptions = TransferOptions(),
                 configure: @escaping (inout DownloaderConfiguration) -> Void = { _ in }) -> Harness {
        Harness(retry: retry, transfer: transfer, configure: {
            $0.networkMonitor = monitor
            $0.networkProbeInterval = .seconds(30)
            configure(&$0)
        })
    }

    func onHold(_ h: Harness, _ id: String) -> Bool {
        h.recorder.names(of: id).contains { $0.hasPrefix("onHold") }
    }

    @Test("row 18: a server that connected and went silent is a counted retry that resumes at the stalled offset, never a wait for the network")
    func silentServerRetriesAtOffset() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor, transfer: TransferOptions(requestTimeout: .seconds(10)))
        try await h.stalled()  // 1000 of 10,000 bytes, then silence
        await h.downloader.refresh()
        h.clock.advance(by: .seconds(10))
        await h.downloader.refresh()
        let (error, retryIn) = await h.recorder.interruption(of: "a")
        #expect(error.code == .timedOut)
        #expect(retryIn == .seconds(1), "the retry policy's first delay")
        #expect(await h.downloader.info(of: "a")?.waitReason == nil)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0, 1000], "the retry continues at the stalled offset")
        #expect(h.contents(h.file("a")) == MockContent.seeded(seed: 1, size: 10_000).data)
        #expect(!onHold(h, "a"))
        await h.cleanUp()
    }

    @Test("a silent server uses up the retries and the download fails: --retry holds")
    func silentServerFailsAfterRetries() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor, transfer: TransferOptions(requestTimeout: .seconds(10)))
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 1000), .stall(at: 1000), .stall(at: 1000)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        for attempt in 1...3 {
            await h.parked(2)
            await h.downloader.refresh()  // the tick sees the attempt: the idle time counts from here
            let mark = h.recorder.count
            h.clock.advance(by: .seconds(10))
            await h.downloader.refresh()
            if attempt < 3 {
                let (error, retryIn) = await h.recorder.interruption(of: "a", from: mark)
                #expect(error.code == .timedOut)
                #expect(retryIn == .seconds(attempt), "1 s, then 2 s")
                h.clock.advance(by: .seconds(attempt))
                await h.downloader.refresh()
            }
        }
        let (error, data) = await h.recorder.failure(of: "a")
        #expect(error.code == .timedOut)
        #expect(data?.bytesOnDisk == 1000)
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0, 1000, 1000])
        #expect(!onHold(h, "a"))
        await h.cleanUp()
    }

    @Test("a name that does not exist while the machine has a default route fails at once, with no retry and a clear message")
    func unknownNameFailsAtOnce() async throws {
        let monitor = TestNetworkMonitor(defaultRoute: true)
        let h = harness(monitor)
        h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: .cannotConnect(NetworkWaitTests.notResolved), count: 5))
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (error, _) = await h.recorder.failure(of: "a")
        #expect(error.code == .connectionFailed)
        #expect(!error.isRetryable)
        #expect(error.message.contains("no such host files"), "\(error.message)")
        #expect(h.mock.requests(for: h.url("a")).count == 1)
        #expect(!h.recorder.names(of: "a").contains { $0.hasPrefix("interrupted") })
        await h.cleanUp()
    }

    @Test("row 46: a download waiting for the network fails after maxNetworkWait, saying how long it waited; resume starts a new stretch")
    func networkWaitIsBounded() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor) { $0.maxNetworkWait = .seconds(100) }
        let content = h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: .cannotConnect(NetworkWaitTests.unreachable), count: 5))
        try await h.downloader.start(id: "a", url: h.url("a"))
        _ = await h.recorder.first { if case .onHold("a", .waitingForNetwork) = $0 { true } else { false } }
        // Probes at 30, 60 and 90 s find no way either; the stretch goes on.
        for second in stride(from: 10, through: 90, by: 10) {
            let mark = h.recorder.count
            h.clock.advance(by: .seconds(10))
            await h.downloader.refresh()
            if second % 30 == 0 {
                _ = await h.recorder.first(from: mark) {
                    if case .onHold("a", .waitingForNetwork) = $0 { true } else { false }
                }
            }
        }
        h.clock.advance(by: .milliseconds(9_999))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .interrupted, "not before 100 s")
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        let (error, _) = await h.recorder.failure(of: "a")
        #expect(error.code == .networkUnavailable)
        #expect(error.message == "no network for 100 s: giving up", "\(error.messages)")
        #expect(h.mock.requests(for: h.url("a")).count == 4, "the first attempt and three probes")
        // The caller's resume starts a new stretch: the next probe (the fifth failure) waits again.
        let mark = h.recorder.count
        try await h.downloader.resume("a")
        _ = await h.recorder.first(from: mark) {
            if case .onHold("a", .waitingForNetwork) = $0 { true } else { false }
        }
        h.clock.advance(by: .seconds(30))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }

    @Test("row 19: the resource timeout counts the wait for the network")
    func resourceTimeoutCountsNetworkWait() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor, transfer: TransferOptions(resourceTimeout: .seconds(20)))
        h.serve("a", size: 10_000)
        h.mock.script(h.url("a"), attempts: Array(repeating: .cannotConnect(NetworkWaitTests.unreachable), count: 5))
        try await h.downloader.start(id: "a", url: h.url("a"))
        _ = await h.recorder.first { if case .onHold("a", .waitingForNetwork) = $0 { true } else { false } }
        h.clock.advance(by: .milliseconds(19_999))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .interrupted)
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        let (error, _) = await h.recorder.failure(of: "a")
        #expect(error.code == .resourceTimedOut)
        #expect(h.mock.requests(for: h.url("a")).count == 1)
        await h.cleanUp()
    }

    @Test("row 19: the resource timeout counts a retry's backoff and the attempts before it")
    func resourceTimeoutCountsBackoff() async throws {
        let monitor = TestNetworkMonitor()
        let h = harness(monitor, retry: RetryPolicy(maxRetries: 5, initialDelay: .seconds(60), jitter: 0),
                        transfer: TransferOptions(requestTimeout: .seconds(10), resourceTimeout: .seconds(30)))
        try await h.stalled()
        await h.downloader.refresh()
        h.clock.advance(by: .seconds(10))  // 10 s downloading, then the request timeout
        await h.downloader.refresh()
        let (_, retryIn) = await h.recorder.interruption(of: "a")
        #expect(retryIn == .seconds(60))
        h.clock.advance(by: .milliseconds(19_999))  // 29.999 s in all
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .interrupted)
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        let (error, data) = await h.recorder.failure(of: "a")
        #expect(error.code == .resourceTimedOut)
        #expect(data?.bytesOnDisk == 1000)
        #expect(h.mock.requests(for: h.url("a")).count == 1, "no attempt after the time ran out")
        await h.cleanUp()
    }

    @Test("the table classes a failure the same whatever the transport guessed")
    func tableOverridesTheTransport() {
        var silent = DownloadError(.timedOut, "no data", isRetryable: false)
        #expect(FailurePolicy.classify(silent) { true } == (.timedOut, .retry))
        silent = DownloadError(.connectionFailed, "x", isRetryable: true)
        silent.connectionFailure = .nameNotResolved
        #expect(FailurePolicy.classify(silent) { true } == (.nameDoesNotExist, .failNow))
        #expect(FailurePolicy.classify(silent) { false } == (.nameNotResolvedOffline, .waitForNetwork))
        #expect(FailurePolicy.classify(DownloadError.forStatus(503)!) { true } == (.serverBusy, .retry))
        #expect(FailurePolicy.classify(DownloadError.forStatus(404)!) { true } == (.clientError, .failNow))
        #expect(Set(FailurePolicy.table.map(\.kind)) == Set(FailureKind.allCases), "every kind has one row")
        #expect(FailurePolicy.table.count == FailureKind.allCases.count)
    }
}
