import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// `Downloader.outcome(of:)` and `outcomes(of:)`: every kind of outcome, the race with a download
/// that ends before the call, the order against events, and every way a wait ends.
@Suite("Awaiting outcomes", .timeLimit(.minutes(1)))
struct OutcomeTests {
    /// Awaits the outcome of `id` in a task, and returns once that task's wait is registered (so
    /// what the test does next happens during the wait, not before it).
    func waiting(_ h: Harness, _ id: String = "a") async throws -> Task<DownloadOutcome, any Error> {
        let downloader = h.downloader
        let task = Task { try await downloader.outcome(of: id) }
        let deadline = ContinuousClock.now + .seconds(30)
        while downloader.outcomeWaitCount(for: id) == 0 {
            guard ContinuousClock.now < deadline else { throw TestFailure("the wait for '\(id)' was never registered") }
            await Task.yield()
        }
        return task
    }

    @Test("completed: the file, and the completion events are out before the call returns")
    func completed() async throws {
        let h = Harness()
        let content = h.serve("a", size: 100_000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        let outcome = try await h.downloader.outcome(of: "a")
        guard case .completed(let file) = outcome else { throw TestFailure("expected completed, got \(outcome)") }
        #expect(file == h.file("a").standardizedFileURL)
        #expect(h.contents(file) == content.data)
        #expect(Array(h.recorder.names(of: "a").suffix(2)) == ["state:completed", "completed"])
        await h.cleanUp()
    }

    @Test("a download that ended before the call answers at once from its state")
    func alreadyOver() async throws {
        let h = Harness()
        h.serve("a", size: 1000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .completed)
        #expect(try await h.downloader.outcome(of: "a").isCompleted)
        #expect(h.downloader.outcomeWaitCount(for: "a") == 0)
        await h.cleanUp()
    }

    @Test("the race: many downloads awaited right after their start all answer, whichever ends first")
    func raceWithStart() async throws {
        let h = Harness(maxConcurrent: 8)
        let ids = (0..<40).map { "f\($0)" }
        for id in ids { h.serve(id, size: Int64(1 + ids.firstIndex(of: id)! * 100)) }
        let downloader = h.downloader
        try await withThrowingTaskGroup(of: DownloadOutcome.self) { group in
            for id in ids {
                try await downloader.start(id: id, url: h.url(id))
                group.addTask { try await downloader.outcome(of: id) }
            }
            for try await outcome in group { #expect(outcome.isCompleted, "\(outcome)") }
        }
        await h.cleanUp()
    }

    @Test("failed: the error, and no resume data when no byte was kept")
    func failed() async throws {
        let h = Harness()
        h.serve("a", size: 1000)
        h.mock.script(h.url("a"), attempts: [.status(404)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let outcome = try await h.downloader.outcome(of: "a")
        guard case .failed(let error, let data) = outcome else { throw TestFailure("expected failed, got \(outcome)") }
        #expect(error.statusCode == 404)
        #expect(data == nil)
        #expect(outcome.state == .failed)
        await h.cleanUp()
    }

    @Test("cancelled during the wait")
    func cancelled() async throws {
        let h = Harness()
        try await h.stalled()
        let wait = try await waiting(h)
        try await h.downloader.cancel("a")
        let outcome = try await wait.value
        #expect(outcome.state == .cancelled)
        await h.cleanUp()
    }

    @Test("paused during the wait, with the bytes in the resume data; a resume gets a new outcome")
    func paused() async throws {
        let h = Harness()
        try await h.stalled()
        let wait = try await waiting(h)
        _ = try await h.downloader.pause("a")
        guard case .paused(let data) = try await wait.value else { throw TestFailure("expected paused") }
        #expect(data?.bytesOnDisk == 1000)
        try await h.downloader.resume("a")
        #expect(try await h.downloader.outcome(of: "a").isCompleted)
        await h.cleanUp()
    }

    @Test("interrupted with no retry due (disk full, not waiting for space) is an outcome")
    func interruptedWithoutRetry() async throws {
        let h = Harness(configure: { $0.waitsForSpace = false })
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.error(at: 1500, DownloadError(.diskFull, "full"))])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let outcome = try await h.downloader.outcome(of: "a")
        guard case .interrupted(let error, let data) = outcome else { throw TestFailure("expected interrupted, got \(outcome)") }
        #expect(error.code == .diskFull)
        #expect(data?.bytesOnDisk == 1500)
        await h.cleanUp()
    }

    @Test("an interruption with a retry due is not an outcome: the wait goes on to the completion")
    func retriesAreNotOutcomes() async throws {
        let h = Harness()
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.drop(at: 2000)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let wait = try await waiting(h)
        let (_, retryIn) = await h.recorder.interruption(of: "a")
        #expect(retryIn != nil)
        h.clock.advance(by: .seconds(3600))
        await h.downloader.refresh()
        guard case .completed(let file) = try await wait.value else { throw TestFailure("expected completed") }
        #expect(h.contents(file) == content.data)
        await h.cleanUp()
    }

    @Test("shutdown ends the wait: interrupted")
    func shutdown() async throws {
        let h = Harness()
        try await h.stalled()
        let wait = try await waiting(h)
        await h.downloader.shutdown()
        #expect(try await wait.value.state == .interrupted)
        #expect(try await h.downloader.outcome(of: "a").state == .interrupted)
        try? FileManager.default.removeItem(at: h.directory)
    }

    @Test("a queued download answers interrupted once the downloader shuts down")
    func shutdownWhileQueued() async throws {
        let h = Harness(maxConcurrent: 1)
        try await h.stalled()
        h.serve("b", size: 100)
        try await h.downloader.start(id: "b", url: h.url("b"))
        let wait = try await waiting(h, "b")
        await h.downloader.shutdown()
        #expect(try await wait.value.state == .interrupted)
        try? FileManager.default.removeItem(at: h.directory)
    }

    @Test("cancelling the waiting task ends the wait and leaves the download running")
    func cancellingTheWait() async throws {
        let h = Harness()
        try await h.stalled()
        let wait = try await waiting(h)
        wait.cancel()
        await #expect(throws: CancellationError.self) { try await wait.value }
        #expect(h.downloader.outcomeWaitCount(for: "a") == 0)
        #expect(await h.downloader.state(of: "a") == .downloading)
        await h.cleanUp()
    }

    @Test("a task cancelled before it waits throws at once")
    func cancelledBeforeWaiting() async throws {
        let h = Harness()
        try await h.stalled()
        let downloader = h.downloader
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await downloader.outcome(of: "a")
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        await h.cleanUp()
    }

    @Test("unknown and not-started ids are refused clearly; removal ends a wait")
    func unknownIds() async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 3, initialDelay: .seconds(100), multiplier: 2, jitter: 0))
        await expectError(.unknownIdentifier) { _ = try await h.downloader.outcome(of: "nope") }
        h.serve("n", size: 10)
        try await h.downloader.add(id: "n", url: h.url("n"))
        await expectError(.invalidState) { _ = try await h.downloader.outcome(of: "n") }
        await expectError(.unknownIdentifier) { _ = try await h.downloader.outcomes(of: ["nope", "n"]) }

        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.drop(at: 500)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let wait = try await waiting(h)
        _ = await h.recorder.interruption(of: "a")  // a retry is due in 100 s
        try await h.downloader.remove("a")
        await expectError(.unknownIdentifier) { _ = try await wait.value }
        await h.cleanUp()
    }

    @Test("outcomes(of:) answers every id once all are over")
    func severalOutcomes() async throws {
        let h = Harness()
        h.serve("ok", size: 1000)
        h.serve("gone", size: 1000)
        h.mock.script(h.url("gone"), attempts: [.status(410)])
        try await h.downloader.start(id: "ok", url: h.url("ok"))
        try await h.downloader.start(id: "gone", url: h.url("gone"))
        let outcomes = try await h.downloader.outcomes(of: ["ok", "gone", "ok"])
        #expect(outcomes.count == 2)
        #expect(outcomes["ok"]?.isCompleted == true)
        #expect(outcomes["gone"]?.state == .failed)
        await h.cleanUp()
    }
}
