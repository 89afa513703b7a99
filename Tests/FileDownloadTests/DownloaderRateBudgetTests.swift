import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// A download's rate limit (`TransferOptions.maxBytesPerSecond`) is one budget for all its
/// connections, measured in bytes over the downloader's manual clock: no wall-clock timing.
@Suite("A download's rate limit is one budget for all its connections", .timeLimit(.minutes(2)))
struct DownloaderRateBudgetTests {
    /// Too large to finish within the runs below even at four times the limit.
    private static let size: Int64 = 64 << 20

    /// A harness that splits files of 1 MiB and more over up to four connections.
    private static func harness() -> Harness {
        Harness(configure: SegmentTests.configure)
    }

    /// Moves the clock `step` at a time for `duration`, each time once `parked` tasks (the tick
    /// loop and every connection) wait on it.
    private static func run(_ h: Harness, parked: Int, for duration: Duration, step: Duration = .milliseconds(10)) async {
        var elapsed = Duration.zero
        while elapsed < duration {
            await h.parked(parked)
            h.clock.advance(by: step)
            elapsed += step
        }
        await h.parked(parked)
    }

    private static func options(rate: Int64, connections: Int) -> DownloadOptions {
        DownloadOptions(transfer: TransferOptions(maxBytesPerSecond: rate), maxConnections: connections)
    }

    private static func expectRate(_ bytes: Int64, _ rate: Double, over seconds: Double,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = rate * seconds
        #expect(abs(Double(bytes) - expected) / expected < 0.05,
                "\(bytes) bytes in \(seconds) s, expected \(Int(expected)) ± 5 %", sourceLocation: sourceLocation)
    }

    @Test("the connections of one download (1 or 4) together keep to its 100 kB/s within 5 % over 10 s", arguments: [1, 4])
    func sharedByConnections(connections: Int) async throws {
        let h = Self.harness()
        h.serve("big", size: Self.size, chunkSize: 16 << 10)
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(rate: 100_000, connections: connections))
        await Self.run(h, parked: connections + 1, for: .seconds(1))
        let start = h.mock.bytesServed(for: h.url("big"))
        await Self.run(h, parked: connections + 1, for: .seconds(10))
        Self.expectRate(h.mock.bytesServed(for: h.url("big")) - start, 100_000, over: 10)
        let moving = h.mock.requests(for: h.url("big")).filter { $0.bytesDelivered > 0 }
        #expect(moving.count == connections, "\(moving)")
        await h.cleanUp()
    }

    @Test("the overall limit below the download's holds over its four connections: the stricter wins")
    func overallStricter() async throws {
        let h = Self.harness()
        h.serve("big", size: Self.size, chunkSize: 16 << 10)
        await h.downloader.setBandwidthLimit(50_000)
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(rate: 100_000, connections: 4))
        await Self.run(h, parked: 5, for: .seconds(1))
        let start = h.mock.bytesServed(for: h.url("big"))
        await Self.run(h, parked: 5, for: .seconds(10))
        Self.expectRate(h.mock.bytesServed(for: h.url("big")) - start, 50_000, over: 10)
        await h.cleanUp()
    }

    @Test("a download inside the budget of another is not slowed by it: two downloads each keep their own limit")
    func budgetsAreSeparate() async throws {
        let h = Self.harness()
        h.serve("a", size: Self.size, chunkSize: 16 << 10)
        h.serve("b", size: Self.size, seed: 2, chunkSize: 16 << 10)
        try await h.downloader.start(id: "a", url: h.url("a"), options: Self.options(rate: 100_000, connections: 2))
        try await h.downloader.start(id: "b", url: h.url("b"), options: Self.options(rate: 40_000, connections: 2))
        await Self.run(h, parked: 5, for: .seconds(1))
        let start = (h.mock.bytesServed(for: h.url("a")), h.mock.bytesServed(for: h.url("b")))
        await Self.run(h, parked: 5, for: .seconds(10))
        Self.expectRate(h.mock.bytesServed(for: h.url("a")) - start.0, 100_000, over: 10)
        Self.expectRate(h.mock.bytesServed(for: h.url("b")) - start.1, 40_000, over: 10)
        await h.cleanUp()
    }

    @Test("a limiter inside another takes every byte from both and asks the longer wait")
    func nestedLimiter() {
        let clock = ManualClock()
        let overall = BandwidthLimiter(bytesPerSecond: nil, burst: .zero, clock: clock)
        let budget = BandwidthLimiter(bytesPerSecond: 10_000, burst: .zero, within: overall)
        #expect(budget.consume(1_000) == .milliseconds(100))
        #expect(budget.consume(1_000) == .milliseconds(200), "the second taker waits for the first's bytes too")
        #expect(overall.delay == .zero, "without a limit the overall limiter counts nothing")
        overall.bytesPerSecond = 5_000
        #expect(budget.consume(1_000) == .milliseconds(300))
        #expect(budget.consume(1_000) == .milliseconds(400))
        overall.bytesPerSecond = 2_000  // now the stricter: its 3,000 bytes owe 1.5 s, the budget's 5,000 0.5 s
        #expect(budget.consume(1_000) == .milliseconds(1500))
        #expect(budget.delay == .milliseconds(1500))
        clock.advance(by: .milliseconds(600))
        #expect(budget.delay == .milliseconds(900))
        budget.bytesPerSecond = nil
        #expect(budget.delay == .milliseconds(900), "the overall limit still holds")
    }
}
