import FileDownload
import FileDownloadMock
import Testing

@Suite("BandwidthLimiter: a shared token bucket on the manual clock")
struct BandwidthLimiterTests {
    @Test("a full bucket lets its burst pass; beyond it the debt is paid back at the rate")
    func burstThenDebt() {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(bytesPerSecond: 1_000_000, burst: .milliseconds(100), clock: clock)
        #expect(limiter.consume(100_000) == .zero)               // the burst: 0.1 s worth
        #expect(limiter.consume(250_000) == .milliseconds(250))  // 250 kB of debt at 1 MB/s
        clock.advance(by: .milliseconds(100))
        #expect(limiter.delay == .milliseconds(150))
        clock.advance(by: .seconds(10))
        #expect(limiter.delay == .zero)
        // Idle time refills no more than the burst.
        #expect(limiter.consume(200_000) == .milliseconds(100))
    }

    @Test("over a long run the bytes let through follow the rate, however many takers share it")
    func longRunRate() {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(bytesPerSecond: 2_000_000, burst: .milliseconds(100), clock: clock)
        // Eight takers, each writing 64 KiB chunks and waiting what the limiter says.
        var nextAllowed = [Duration](repeating: .zero, count: 8)
        var passed: Int64 = 0
        var now: Duration = .zero
        let step: Duration = .milliseconds(1)
        while now < .seconds(10) {
            for i in nextAllowed.indices where nextAllowed[i] <= now {
                passed += 65_536
                nextAllowed[i] = now + limiter.consume(65_536)
            }
            clock.advance(by: step)
            now += step
        }
        let expected = 2_000_000.0 * 10
        #expect(abs(Double(passed) - expected) / expected < 0.05, "\(passed) bytes in 10 s")
    }

    @Test("the limit changes while in use: the new rate applies from that instant; nil lifts it")
    func changeWhileRunning() {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(bytesPerSecond: 1000, burst: .zero, clock: clock)
        #expect(limiter.consume(1000) == .seconds(1))
        limiter.bytesPerSecond = 4000
        #expect(limiter.delay == .milliseconds(250))
        limiter.bytesPerSecond = nil
        #expect(limiter.bytesPerSecond == nil)
        #expect(limiter.consume(1_000_000) == .zero)
        #expect(limiter.delay == .zero)
        limiter.bytesPerSecond = 0  // below 1: no limit
        #expect(limiter.bytesPerSecond == nil)
    }

    @Test("a debt too long for Int64 nanoseconds is clamped to the longest wait, no trap")
    func hugeDebtClamped() {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(bytesPerSecond: 1, burst: .zero, clock: clock)
        #expect(limiter.consume(Int.max) == .nanoseconds(Int64.max))
        #expect(limiter.delay == .nanoseconds(Int64.max))
        // ~9.3 GB at 1 B/s: just past Int64.max nanoseconds.
        let slow = BandwidthLimiter(bytesPerSecond: 1, burst: .zero, clock: clock)
        #expect(slow.consume(9_300_000_000) == .nanoseconds(Int64.max))
    }
}

