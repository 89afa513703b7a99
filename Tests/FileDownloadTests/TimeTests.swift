import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// Retries, backoff and timeouts, all on the manual clock.
@Suite("Retries and timeouts on the manual clock", .timeLimit(.minutes(1)))
struct TimeTests {
    func interruption(_ h: Harness, _ id: String, from: Int) async -> (DownloadError, Duration?) {
        let event = await h.recorder.first(from: from) { if case .interrupted(id, _, _) = $0 { true } else { false } }
        guard case .interrupted(_, let error, let retryIn) = event else { return (DownloadError(.transport, "?"), nil) }
        return (error, retryIn)
    }

    @Test("exponential backoff: 1 s, then 2 s, then success, never earlier")
    func backoff() async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 5, initialDelay: .seconds(1), multiplier: 2, jitter: 0))
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.drop(at: 1000), .drop(at: 3000)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (_, first) = await interruption(h, "a", from: 0)
        #expect(first == .seconds(1))
        h.clock.advance(by: .milliseconds(999))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .interrupted)
        #expect(h.mock.requests(for: h.url("a")).count == 1)
        let mark = h.recorder.count
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        let (_, second) = await interruption(h, "a", from: mark)
        #expect(second == .seconds(2))
        h.clock.advance(by: .milliseconds(1999))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .interrupted)
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0, 1000, 3000])
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }

    @Test("jitter spreads the delay within ±jitter, reproducibly for a seed")
    func jitter() {
        let policy = RetryPolicy(maxRetries: 5, initialDelay: .seconds(10), multiplier: 2, maxDelay: .seconds(300), jitter: 0.2)
        #expect(policy.delay(beforeRetry: 1, unit: 0) == .seconds(8))
        #expect(policy.delay(beforeRetry: 1, unit: 0.5) == .seconds(10))
        #expect(policy.delay(beforeRetry: 3, unit: 0.5) == .seconds(40))
        #expect(policy.delay(beforeRetry: 10, unit: 0.5) == .seconds(300))
        #expect(policy.delay(beforeRetry: 10, unit: 0.9999) < .seconds(360))
    }

    /// A server's Retry-After, the policy's longest delay, and the wait that must follow.
    struct RetryAfterCase: Sendable, CustomTestStringConvertible {
        var asked: Duration
        var maxDelay: Duration
        var waited: Duration
        var testDescription: String { "Retry-After \(asked) with maxDelay \(maxDelay)" }
    }

    @Test("a server's Retry-After longer than the backoff wins, up to the policy's longest delay (not 31 years)",
          arguments: [
              RetryAfterCase(asked: .seconds(30), maxDelay: .seconds(300), waited: .seconds(30)),
              RetryAfterCase(asked: .seconds(1_000_000_000), maxDelay: .seconds(60), waited: .seconds(60)),
          ])
    func retryAfter(_ c: RetryAfterCase) async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 3, initialDelay: .seconds(1), maxDelay: c.maxDelay, jitter: 0))
        h.serve("a", size: 1000)
        h.mock.script(h.url("a"), attempts: [.status(503, retryAfter: c.asked)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (error, retryIn) = await interruption(h, "a", from: 0)
        #expect(error.statusCode == 503)
        try #require(retryIn == c.waited)
        h.clock.advance(by: c.waited)
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        await h.cleanUp()
    }

    @Test("time in the queue counts against neither timeout")
    func notWhileQueued() async throws {
        let h = Harness(maxConcurrent: 1)
        // The blocker holds the only slot for 100 s; its own timeouts are long.
        h.serve("blocker", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("blocker"), attempts: [.stall(at: 500)])
        try await h.downloader.start(id: "blocker", url: h.url("blocker"), options: DownloadOptions(
            transfer: TransferOptions(requestTimeout: .seconds(1000), resourceTimeout: .seconds(1000))))
        await h.parked(2)
        h.serve("queued", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("queued"), attempts: [.stall(at: 500)])
        try await h.downloader.start(id: "queued", url: h.url("queued"), options: DownloadOptions(
            transfer: TransferOptions(requestTimeout: .seconds(10), resourceTimeout: .seconds(20))))
        for _ in 0..<10 {
            h.clock.advance(by: .seconds(10))
            await h.downloader.refresh()
        }
        #expect(await h.downloader.state(of: "queued") == .waiting)
        try await h.downloader.pause("blocker")
        await h.recorder.state("queued", .downloading)
        await h.parked(2)
        await h.downloader.refresh()
        h.clock.advance(by: .milliseconds(9_999))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "queued") == .downloading)
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        let (error, _) = await interruption(h, "queued", from: 0)
        #expect(error.code == .timedOut)
        await h.cleanUp()
    }

    @Test("the resource timeout counts active time only, over all attempts")
    func resourceTimeoutAcrossAttempts() async throws {
        let h = Harness(transfer: TransferOptions(requestTimeout: .seconds(1000), resourceTimeout: .seconds(30)))
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 500), .stall(at: 1000)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.parked(2)
        h.clock.advance(by: .seconds(20))  // 20 s active
        try await h.downloader.pause("a")
        h.clock.advance(by: .seconds(3600))  // paused: does not count
        try await h.downloader.resume("a")
        await h.parked(2)
        h.clock.advance(by: .milliseconds(9_999))  // 29.999 s active
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .downloading)
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .failed)
        #expect(await h.downloader.info(of: "a")?.lastError?.contains("resourceTimedOut") == true)
        await h.cleanUp()
    }

    @Test("the idle timeout does not run while the delegate answers a challenge")
    func noTimeoutDuringChallenge() async throws {
        final class SlowDelegate: DownloaderDelegate {
            let gate = AsyncStream<Void>.makeStream()
            let asked = AsyncStream<Void>.makeStream()
            func download(_ id: String, didReceive challenge: AuthChallenge) async -> AuthDisposition {
                asked.continuation.yield()
                for await _ in gate.stream { break }
                return .useCredential(.password(user: "u", password: "p"))
            }
        }
        let delegate = SlowDelegate()
        let h = Harness(transfer: TransferOptions(requestTimeout: .seconds(10)), delegate: delegate)
        h.mock.serve(h.url("a"), MockResource(.seeded(seed: 1, size: 1000),
                                              authentication: [.credential(.password(user: "u", password: "p"))]))
        try await h.downloader.start(id: "a", url: h.url("a"))
        for await _ in delegate.asked.stream { break }
        for _ in 0..<10 {
            h.clock.advance(by: .seconds(10))
            await h.downloader.refresh()
        }
        #expect(await h.downloader.state(of: "a") == .downloading)
        delegate.gate.continuation.yield()
        await h.recorder.state("a", .completed)
        await h.cleanUp()
    }
}
