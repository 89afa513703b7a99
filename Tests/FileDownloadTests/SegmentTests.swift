import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// One file over several connections (segments), on the mock transport and the manual clock.
@Suite("Segments: one file over several connections", .timeLimit(.minutes(2)))
struct SegmentTests {
    static let size: Int64 = 4 << 20
    static let chunk = 64 << 10

    /// A harness that splits files of 1 MiB and more into pieces of at least 256 KiB.
    static func harness(store: InMemoryDownloadStore? = nil, progressInterval: Duration = .seconds(3600)) -> Harness {
        Harness(progressInterval: progressInterval, store: store, configure: configure)
    }

    /// Splits files of 1 MiB and more into pieces of at least 256 KiB.
    static func configure(_ configuration: inout DownloaderConfiguration) {
        configuration.segmentThreshold = 1 << 20
        configuration.minimumSegmentSize = 256 << 10
    }

    /// Serves `name` as the big file: ``size`` bytes in chunks of ``chunk``, 1 ms apart.
    @discardableResult
    static func serveBig(_ h: Harness, _ name: String = "big", seed: UInt64 = 1) -> MockContent {
        h.serve(name, size: size, seed: seed, chunkSize: chunk, chunkDelay: .milliseconds(1))
    }

    static func options(connections: Int?) -> DownloadOptions {
        var options = DownloadOptions()
        options.maxConnections = connections
        return options
    }

    /// The overlap window of pieces of at least 256 KiB: a ranged request starts this many bytes
    /// before its range, to compare them with its neighbour's.
    static let window: Int64 = 256

    /// The bytes the overlap windows of `h`'s ranged requests for `name` may add at most.
    static func overlapAllowance(_ h: Harness, _ name: String = "big") -> Int64 {
        window * Int64(h.mock.requests(for: h.url(name)).filter { $0.end != nil && $0.offset > 0 }.count)
    }

    /// The mock served at most the file's size and the overlap windows (a chunk cut at a
    /// segment's end is not counted, so a few bytes less): no byte was fetched twice.
    static func expectNoByteTwice(_ h: Harness, sourceLocation: SourceLocation = #_sourceLocation) {
        let served = h.mock.bytesServed(for: h.url("big"))
        #expect(served <= size + overlapAllowance(h) && served > size - 8 * Int64(chunk), sourceLocation: sourceLocation)
    }

    /// Starts "big" over four connections, lets each write a few chunks, and pauses it.
    static func startAndPause(_ h: Harness) async throws {
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 4))
        await h.parked(5)  // the tick loop and four connections
        for _ in 0..<3 {
            h.clock.advance(by: .milliseconds(1))
            await h.parked(5)
        }
        _ = try await h.downloader.pause("big")
        await h.recorder.state("big", .paused)
    }

    /// Moves the clock (``pump(_:)``) until `id` completes.
    static func runToCompletion(_ h: Harness, _ id: String = "big") async {
        let pump = pump(h)
        await h.recorder.state(id, .completed)
        pump.cancel()
    }

    /// Moves the clock to the next deadline whenever a transfer waits on it, until cancelled.
    static func pump(_ h: Harness) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                await h.clock.waitForSleepers(atLeast: 2)  // the tick loop and at least one transfer
                h.clock.advanceToNextDeadline()
                await Task.yield()
            }
        }
    }

    /// Moves the clock to the next deadline only when every transfer of `url` that runs is
    /// asleep on it, next to the tick loop: a slow transfer then gets exactly as far as its
    /// deadlines allow against a fast one, however busy the machine is. (``pump(_:)`` moves the
    /// clock as soon as one transfer waits, so on a loaded machine the slow one may get ahead
    /// while the fast one is between chunks.) Polls with `Task.yield()`: the number of transfers
    /// that run can drop while it waits, which no sleeper count would announce.
    static func lockstepPump(_ h: Harness, _ url: URL) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                await lockstep(h, [url])
                await Task.yield()
            }
        }
    }

    /// One step of ``lockstepPump(_:_:)``: waits until every running transfer of `urls` and the
    /// tick loop wait on the clock (or the task is cancelled), then moves it to the next deadline.
    /// Returns how many transfers ran at that move.
    @discardableResult
    static func lockstep(_ h: Harness, _ urls: [URL]) async -> Int {
        let runningNow = { urls.reduce(0) { $0 + h.mock.requests(for: $1).filter { $0.outcome == .running }.count } }
        await h.clock.waitForSleepers(atLeast: 2)
        var running = runningNow()
        while !Task.isCancelled, h.clock.sleeperCount < 1 + running {
            await Task.yield()
            running = runningNow()
        }
        h.clock.advanceToNextDeadline()
        return running
    }

    @Test("a large file is split over the allowed connections: ranged requests, exact bytes, none fetched twice, monotonic progress")
    func split() async throws {
        let h = Self.harness(progressInterval: .milliseconds(5))
        let content = Self.serveBig(h)
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 4))
        await Self.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        #expect(requests.count == 4)
        #expect(requests.first?.offset == 0 && requests.first?.end == nil)
        let ranged = requests.dropFirst()
        #expect(ranged.allSatisfy { $0.end != nil && $0.validator == content.defaultValidator })
        // The rest after the first connection's first chunk, cut in four: contiguous ranges to the
        // end, each asked from its overlap window before its start.
        let ends = ranged.compactMap(\.end).sorted(), starts = ranged.map { $0.offset + Self.window }.sorted()
        #expect(starts.first! > Int64(Self.chunk) && starts.first! < Self.size / 2)
        #expect(Array(ends.dropLast()) == Array(starts.dropFirst()) && ends.last == Self.size)
        Self.expectNoByteTwice(h)
        let received = h.recorder.events(of: "big").compactMap { event -> Int64? in
            if case .progress(_, let p) = event { return p.receivedBytes }
            return nil
        }
        #expect(received.count > 2)
        #expect(zip(received, received.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(received.last == Self.size)
        // The total, summed over the segments, never goes down either and ends at the file's size.
        let totals = h.recorder.events.compactMap { event -> Int64? in
            if case .totalProgress(let total) = event { return total.receivedBytes }
            return nil
        }
        #expect(totals.count > 2)
        #expect(zip(totals, totals.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(totals.last == Self.size)
        await h.cleanUp()
    }

    @Test("by default pieces are at least 4 MiB: a 20 MiB file with maxConnections 8 uses 5 connections")
    func defaultPieceSize() async throws {
        let h = Harness()  // the default configuration: split from 16 MiB, pieces of at least 4 MiB
        let size: Int64 = 20 << 20
        let content = h.serve("big", size: size, chunkSize: Self.chunk, chunkDelay: .milliseconds(1))
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 8))
        await Self.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        // The first connection's piece and four ranged ones (20 MiB cut as its head arrives, in
        // pieces of at least 4 MiB; with 1 MiB it would be 8); none was halved below 4 MiB.
        let ranged = requests.filter { $0.end != nil }
        #expect(ranged.count == 4, "\(requests.map { ($0.offset, $0.end) })")
        #expect(ranged.allSatisfy { $0.end! - $0.offset >= 4 << 20 })
        await h.cleanUp()
    }

    @Test("a transport that does not list .ranges: one request without an end fetches the whole large file")
    func transportWithoutRanges() async throws {
        nonisolated(unsafe) var rangeless: RangelessTransport!
        let h = Harness(wrap: { mock in
            rangeless = RangelessTransport(mock)
            return rangeless
        }, configure: Self.configure)
        let content = Self.serveBig(h)
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 4))
        await Self.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        #expect(requests.count == 1 && requests[0].offset == 0 && requests[0].end == nil)
        #expect(rangeless.rangedRequests == 0)
        await h.cleanUp()
    }

    @Test("one connection (maxConnections 1) and small files are not split")
    func notSplit() async throws {
        let h = Self.harness()
        let content = Self.serveBig(h)
        let small = h.serve("small", size: 512 << 10, chunkSize: Self.chunk, chunkDelay: .milliseconds(1))
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 1))
        try await h.downloader.start(id: "small", url: h.url("small"), options: Self.options(connections: 4))
        let pump = Self.pump(h)
        await h.recorder.state("big", .completed)
        await h.recorder.state("small", .completed)
        pump.cancel()
        #expect(h.contents(h.file("big")) == content.data)
        #expect(h.contents(h.file("small")) == small.data)
        #expect(h.mock.requests(for: h.url("big")).count == 1)
        #expect(h.mock.requests(for: h.url("small")).count == 1)
        await h.cleanUp()
    }

    @Test("work stealing: a connection that finished takes the upper half of a slow one's range")
    func stealing() async throws {
        let h = Self.harness()
        let content = Self.serveBig(h)
        h.mock.script(h.url("big"), attempts: [.normal, .slow(.milliseconds(50))])
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 2))
        let pump = Self.lockstepPump(h, h.url("big"))
        await h.recorder.state("big", .completed)
        pump.cancel()
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        try #require(requests.count >= 3)
        #expect(requests[1].offset > (1 << 20) && requests[1].end == Self.size)
        // The third connection took the upper half of what the slow one had left.
        let left = Self.size - requests[1].offset
        #expect(requests[2].offset > requests[1].offset + Int64(Self.chunk) && requests[2].offset < Self.size - (256 << 10))
        #expect(requests[2].end == Self.size)
        #expect(requests[1].bytesDelivered < left / 2, "\(requests)")
        Self.expectNoByteTwice(h)
        await h.cleanUp()
    }

    @Test("a changed remote file seen by one segment restarts the whole file from zero: the new version, no mixed bytes")
    func changedFile() async throws {
        let h = Self.harness()
        Self.serveBig(h)
        let newer = MockContent.seeded(seed: 77, size: Self.size)
        h.mock.script(h.url("big"), attempts: [.normal, .normal, .changeContent(to: newer)])
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 4))
        await Self.runToCompletion(h)
        #expect(h.contents(h.file("big")) == newer.data)
        #expect(h.recorder.names(of: "big").contains("restarted:validatorChanged"))
        let requests = h.mock.requests(for: h.url("big"))
        #expect(requests[2].outcome == MockRequestRecord.Outcome.failed(.protocolViolation) && requests[2].bytesDelivered == 0)
        // After the restart: a fresh start from zero with no validator, then ranges of the new version.
        let restart = try #require(requests.indices.dropFirst(3).first { requests[$0].offset == 0 })
        #expect(requests[restart].validator == nil && requests[restart].end == nil)
        #expect(requests[(restart + 1)...].allSatisfy { $0.validator == newer.defaultValidator })
        #expect(!h.recorder.states(of: "big").contains(.failed))
        await h.cleanUp()
    }

    @Test("a remote file that changes under every attempt restarts at most maxRetries times, then fails naming the file")
    func changedFileRestartsAreCapped() async throws {
        // maxRetries 2 (the retry policy bounds the restarts): two restarts from zero, then failed.
        let h = Harness(retry: RetryPolicy(maxRetries: 2, initialDelay: .seconds(1), multiplier: 2, jitter: 0),
                        configure: Self.configure)
        Self.serveBig(h)
        // Each attempt: its first connection gets a version, the second connection's ranged
        // request sees another one (two connections: no other request in between).
        let versions = (1...3).map { MockContent.seeded(seed: 100 + UInt64($0), size: Self.size) }
        h.mock.script(h.url("big"), attempts: versions.flatMap { [.normal, .changeContent(to: $0)] })
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 2))
        let pump = Self.pump(h)
        let (error, resumeData) = await h.recorder.failure(of: "big")
        pump.cancel()
        #expect(error.code == .protocolViolation && !error.isRetryable)
        #expect(error.messages.joined().contains("mock://files/big"))
        #expect(resumeData == nil)
        #expect(h.recorder.names(of: "big").filter { $0.hasPrefix("restarted") }.count == 2)
        #expect(h.mock.requests(for: h.url("big")).count == 6)
        let state = await h.downloader.info(of: "big")?.state
        #expect(state == .failed)
        #expect(h.contents(h.file("big")) == nil)
        #expect(h.contents(h.directory.appendingPathComponent("big.part")) == nil)
        await h.cleanUp()
    }

    @Test("a server that ignores ranges: the download falls back to one connection and completes")
    func rangesIgnored() async throws {
        let h = Self.harness()
        let content = MockContent.seeded(seed: 5, size: Self.size)
        h.mock.serve(h.url("big"), MockResource(content, chunkSize: Self.chunk, chunkDelay: .milliseconds(1), supportsRanges: false))
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 4))
        await Self.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        #expect(requests[0].offset == 0 && requests[0].bytesDelivered == Self.size)
        #expect(requests.count > 1)
        #expect(requests.dropFirst().allSatisfy { $0.end != nil && $0.bytesDelivered == 0 })
        #expect(!h.recorder.states(of: "big").contains(.interrupted))
        await h.cleanUp()
    }

    @Test("an extra segment's 503 does not fail or interrupt the download: its range is taken by another connection")
    func transientSegmentFailure() async throws {
        let h = Self.harness()
        let content = Self.serveBig(h)
        h.mock.script(h.url("big"), attempts: [.normal, .status(503, retryAfter: .seconds(5))])
        try await h.downloader.start(id: "big", url: h.url("big"), options: Self.options(connections: 4))
        await Self.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        #expect(requests[1].outcome == MockRequestRecord.Outcome.failed(.badStatus))
        // Its range was fetched later by another connection.
        #expect(requests.dropFirst(2).contains { $0.offset == requests[1].offset })
        #expect(!h.recorder.states(of: "big").contains(.interrupted))
        Self.expectNoByteTwice(h)
        await h.cleanUp()
    }

    @Test("after a segment's transient failure the download runs one connection fewer for one sample window, then opens it again")
    func connectionComesBackAfterAFailure() async throws {
        let h = Self.harness(progressInterval: .milliseconds(100))  // a tick, and so a wake, every 100 ms
        // Four pieces of 1 MiB at 64 KiB per 500 ms: 8 s each.
        let content = h.serve("big", size: Self.size, seed: 1, chunkSize: Self.chunk, chunkDelay: .milliseconds(500))
        h.mock.script(h.url("big"), attempts: [.normal, .drop(at: 0)])  // the first ranged request fails at once
        let url = h.url("big")
        try await h.downloader.start(id: "big", url: url, options: Self.options(connections: 4))
        // The clock moves until a fifth request appears (or 7 s, before any piece could end).
        let start = h.clock.now
        var requests = h.mock.requests(for: url)
        while requests.count < 5, h.clock.now < start.advanced(by: .seconds(7)) {
            await Self.lockstep(h, [url])
            requests = h.mock.requests(for: url)
        }
        let reopenedAfter = start.duration(to: h.clock.now)
        try #require(requests.count == 5, "\(requests)")
        #expect(requests[1].outcome == .failed(.connectionLost))
        // Not within the sample window (2 s) after the failure: one connection fewer meanwhile;
        // then at a wake soon after it (a tick every 100 ms; the bound leaves room for a busy
        // machine, where the attempt may see the failure and the wake a little late).
        #expect(reopenedAfter >= .seconds(2) && reopenedAfter < .seconds(4), "\(reopenedAfter)")
        // Then the failed range runs again beside the three pieces that never stopped.
        #expect(requests[4].offset == requests[1].offset && requests[4].end == requests[1].end)
        #expect(requests.filter { $0.outcome == .running }.count == 4, "\(requests)")
        let pump = Self.lockstepPump(h, url)
        await h.recorder.state("big", .completed)
        pump.cancel()
        #expect(h.contents(h.file("big")) == content.data)
        Self.expectNoByteTwice(h)
        await h.cleanUp()
    }

    @Test("pause and resume keep the segments: each continues from its own bytes, none fetched twice")
    func pauseResume() async throws {
        let store = InMemoryDownloadStore()
        let h = Self.harness(store: store)
        let content = Self.serveBig(h)
        try await Self.startAndPause(h)
        // The stored record keeps each segment, and one stream (resume data, a fleet's next
        // holder, fdl's planner) continues after the bytes from the start on, not after their sum.
        let saved = try #require(await store.record(for: "big"))
        #expect(saved.segments.count == 4)
        #expect(saved.segments.bytesDone > saved.segments.contiguousPrefix)
        #expect(saved.checkpointedBytes == saved.segments.contiguousPrefix)
        let before = h.mock.requests(for: h.url("big")).count
        #expect(before == 4)
        try await h.downloader.resume("big")
        await Self.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data)
        let after = h.mock.requests(for: h.url("big")).dropFirst(before)
        #expect(after.count == 4)
        #expect(after.allSatisfy { $0.end != nil && $0.offset > 0 && $0.validator == content.defaultValidator })
        Self.expectNoByteTwice(h)
        await h.cleanUp()
    }

    @Test("segments paused, then a new downloader over the same store resumes them with one connection: byte-exact, only the bytes past the contiguous prefix fetched again")
    func restoredWithOneConnection() async throws {
        let store = InMemoryDownloadStore()
        let h = Self.harness(store: store)
        let content = Self.serveBig(h)
        try await Self.startAndPause(h)
        await h.downloader.shutdown()  // the process ends; the staging file and the store stay
        let firstServed = h.mock.bytesServed(for: h.url("big"))
        var saved = try #require(await store.record(for: "big"))
        let prefix = saved.segments.contiguousPrefix, done = saved.segments.bytesDone
        #expect(saved.segments.count == 4 && prefix > 0 && done > prefix)

        // The next process is told to use one connection for it.
        saved.options.maxConnections = 1
        await store.save(saved)
        let next = Harness(store: store, directory: h.directory, configure: Self.configure)
        next.mock.serve(next.url("big"), MockResource(content, chunkSize: Self.chunk, chunkDelay: .milliseconds(1)))
        _ = try await next.downloader.restore()
        try await next.downloader.resume("big")
        await Self.runToCompletion(next)
        #expect(next.contents(next.file("big")) == content.data)
        // One stream continues after the contiguous prefix (the first segment's bytes): one
        // request from there to the end, conditional on the stored validator, no range.
        let requests = next.mock.requests(for: next.url("big"))
        #expect(requests.count == 1)
        #expect(requests.first?.offset == prefix && requests.first?.end == nil)
        #expect(requests.first?.validator == content.defaultValidator)
        let served = next.mock.bytesServed(for: next.url("big"))
        #expect(served == Self.size - prefix)
        // What is fetched twice: the bytes the other three segments had on disk (done - prefix),
        // since one stream cannot skip over the holes between them; nothing more (a chunk cut at
        // the pause may have been served but not written: at most one per connection).
        #expect(firstServed + served - Self.size >= done - prefix)
        #expect(firstServed + served - Self.size <= done - prefix + 4 * Int64(Self.chunk))
        await next.cleanUp()
    }
}
