import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// The downloader-wide limit through `Downloader` and `MockTransport`, measured in bytes over the
/// downloader's (manual) clock: no wall-clock timing.
@Suite("One bandwidth limit for the whole Downloader", .timeLimit(.minutes(2)))
struct DownloaderBandwidthTests {
    private let names = (1...8).map { "f\($0)" }

    /// Moves the clock `step` at a time for `duration`, each time once `parked` tasks (every
    /// transfer and the tick loop) wait on it. Throws when they do not within 10 s of real time
    /// (a transfer ended or never waits: the limit is not holding it).
    private func run(_ h: Harness, parked: Int, for duration: Duration, step: Duration = .milliseconds(10)) async throws {
        var elapsed = Duration.zero
        while true {
            let all = await withTaskGroup(of: Bool.self) { group in
                group.addTask { await h.parked(parked); return !Task.isCancelled }
                group.addTask { try? await Task.sleep(for: .seconds(10)); return false }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            try #require(all, "after \(elapsed) on the clock, \(h.clock.sleeperCount) of \(parked) tasks wait on it")
            if elapsed >= duration { return }
            h.clock.advance(by: step)
            elapsed += step
        }
    }

    private func served(_ h: Harness, _ names: [String]) -> Int64 {
        names.reduce(0) { $0 + h.mock.bytesServed(for: h.url($1)) }
    }

    private func expectRate(_ bytes: Int64, _ rate: Double, over seconds: Double,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = rate * seconds
        #expect(abs(Double(bytes) - expected) / expected < 0.05,
                "\(bytes) bytes in \(seconds) s, expected \(Int(expected)) ± 5 %", sourceLocation: sourceLocation)
    }

    @Test("8 downloads share 1 MB/s within 5 % over 10 s; raised to 2 MB/s while they run, they follow")
    func sharedLimit() async throws {
        let h = Harness(maxConcurrent: 8)
        for name in names { h.serve(name, size: 7 << 20) }
        await h.downloader.setBandwidthLimit(1_000_000)
        #expect(h.downloader.bandwidthLimit == 1_000_000)
        for name in names { try await h.downloader.start(id: name, url: h.url(name)) }
        try await run(h, parked: 9, for: .seconds(1))
        let start = served(h, names)
        try await run(h, parked: 9, for: .seconds(10))
        expectRate(served(h, names) - start, 1_000_000, over: 10)
        // Every download got a share.
        #expect(names.allSatisfy { h.mock.bytesServed(for: h.url($0)) > 500_000 })

        await h.downloader.setBandwidthLimit(2_000_000)
        let mark = served(h, names)
        try await run(h, parked: 9, for: .seconds(5))
        expectRate(served(h, names) - mark, 2_000_000, over: 5)
        await h.cleanUp()
    }

    @Test("a download's own lower limit still holds next to the overall one")
    func stricterWins() async throws {
        let h = Harness(maxConcurrent: 8)
        for name in names { h.serve(name, size: 7 << 20, chunkSize: 4096) }
        await h.downloader.setBandwidthLimit(1_000_000)
        var slow = DownloadOptions()
        slow.transfer.maxBytesPerSecond = 40_960
        for name in names {
            try await h.downloader.start(id: name, url: h.url(name), options: name == "f1" ? slow : DownloadOptions())
        }
        try await run(h, parked: 9, for: .seconds(1))
        let start = (served(h, names), h.mock.bytesServed(for: h.url("f1")))
        try await run(h, parked: 9, for: .seconds(10))
        expectRate(served(h, names) - start.0, 1_000_000, over: 10)
        let slowBytes = h.mock.bytesServed(for: h.url("f1")) - start.1
        // Its own 40,960 B/s, well below a fair share of the overall limit (125,000 B/s); waits for
        // the shared bucket may only slow it a little more.
        #expect(slowBytes <= 409_600 + 4096 && slowBytes >= 368_640, "f1 moved \(slowBytes) bytes in 10 s")
        await h.cleanUp()
    }

    @Test("a schedule sets the limit by the time of day on the downloader's clock")
    func schedule() async throws {
        let h = Harness(maxConcurrent: 1, progressInterval: .seconds(1))
        h.serve("a", size: 7 << 20, chunkDelay: .milliseconds(100))
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let start = utc.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: 8, minute: 59, second: 58))!
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.downloader.setBandwidthSchedule(
            BandwidthSchedule([.init(hour: 8, bytesPerSecond: nil), .init(hour: 9, bytesPerSecond: 100_000)]),
            calendar: utc, startingAt: start)
        #expect(h.downloader.bandwidthLimit == nil)
        try await run(h, parked: 2, for: .seconds(1), step: .milliseconds(100))
        await h.downloader.refresh()
        #expect(h.downloader.bandwidthLimit == nil)
        try await run(h, parked: 2, for: .seconds(1), step: .milliseconds(100))
        await h.downloader.refresh()
        #expect(h.downloader.bandwidthLimit == 100_000)
        // A limit set by hand ends the schedule.
        await h.downloader.setBandwidthLimit(5_000)
        try await run(h, parked: 2, for: .seconds(2), step: .milliseconds(100))
        await h.downloader.refresh()
        #expect(h.downloader.bandwidthLimit == 5_000)
        await h.cleanUp()
    }

    @Test("a transport without .rateLimit draws nothing from the shared limit (its bytes never put the others into debt)")
    func unpacedTransportNotCounted() async throws {
        let unpaced = UnpacedTransport(size: 64 * 1024)
        let h = Harness(wrap: { _ in unpaced })
        await h.downloader.setBandwidthLimit(1000)
        try await h.downloader.start(id: "u", url: h.url("u"))
        await h.recorder.state("u", .completed)
        #expect(unpaced.pacingDelay == .zero, "64 KiB at 1000 B/s would be a debt of a minute")
        await h.cleanUp()
    }

    @Test("a wait for the shared limit longer than the request timeout is not idleness: no timeout, no hold for the network")
    func pacedWaitIsNotIdle() async throws {
        let h = Harness(transfer: TransferOptions(requestTimeout: .seconds(5)))
        let content = h.serve("a", size: 32 * 1024, chunkSize: 16 * 1024)
        await h.downloader.setBandwidthLimit(1000)  // each chunk owes ~16 s
        try await h.downloader.start(id: "a", url: h.url("a"))
        for _ in 0..<60 {
            // One second at a time, each once the transfer waits on the clock (with the tick loop).
            try await poll("the transfer waits on the clock, or ended", limit: .seconds(60)) {
                if h.clock.sleeperCount >= 2 { return true }
                return await h.downloader.state(of: "a") != .downloading
            }
            if await h.downloader.state(of: "a") != .downloading { break }
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
        }
        try #require(!h.recorder.names(of: "a").contains { $0.hasPrefix("interrupted") || $0.hasPrefix("onHold") },
                     "\(h.recorder.names(of: "a"))")
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }
}
