import Synchronization

/// A token bucket that several transfers draw from: the ``Downloader``'s one limit for all its
/// downloads (``Downloader/setBandwidthLimit(_:)``), and each download's own budget
/// (``TransferOptions/maxBytesPerSecond``) that all the connections of the download share.
///
/// A download's budget is made ``init(bytesPerSecond:burst:within:)`` the overall limiter: every
/// byte taken from it is taken from both, and the wait it asks is the longer of the two, so the
/// stricter limit holds (the overall one may be set by a ``BandwidthSchedule``).
///
/// The bucket fills at ``bytesPerSecond`` up to ``burst`` worth of bytes. Every body byte a
/// ``TransferWriter`` writes is taken from it (``consume(_:)``), which may put the bucket into debt;
/// the taker then waits until its own bytes are paid for (the wait ``consume(_:)`` returns, which
/// a transport listing ``TransportCapabilities/rateLimit`` reads as ``TransferWriter/pacingDelay``)
/// before it reads more. Takers are so served in the order they took, none starved, and all
/// transfers together move at most `bytesPerSecond × t + burst + one chunk per transfer` bytes in
/// any window of `t`: the long-run rate is the limit, however many transfers share it. ``delay``
/// is how long the whole debt takes to be paid back.
///
/// The limit may change at any time, also while transfers run: the bytes already counted keep
/// their place in the bucket and the new rate applies from that instant. `nil` lifts the limit
/// (``delay`` is then zero and nothing is counted).
///
/// Time is read from the clock given at init (the downloader's), so tests on a manual clock see
/// exact delays.
public final class BandwidthLimiter: Sendable {
    private struct Bucket {
        var rate: Int64?
        /// Counts the changes of ``rate``: a wait promised before a change is asked again.
        var generation = 0
        /// Bytes that may pass now; negative while in debt.
        var tokens: Double
        /// When ``tokens`` was last brought up to date, on the limiter's clock.
        var stamp: Duration
    }

    private let bucket: Mutex<Bucket>
    /// Whether a limit is set: read without the lock on every write.
    private let limited: Atomic<Bool>
    private let now: @Sendable () -> Duration
    /// The limiter above this one (the overall limit), which every byte taken is also taken from.
    private let parent: BandwidthLimiter?
    /// How much time's worth of bytes the bucket holds when full (an idle bucket lets that much
    /// pass at once). Default 100 ms.
    public let burst: Duration

    /// Creates a limiter that starts full.
    ///
    /// - Parameters:
    ///   - bytesPerSecond: the limit; `nil` or a value below 1 for none.
    ///   - burst: how much time's worth of bytes may pass at once after an idle spell.
    ///   - clock: where time is read; the downloader passes its own.
    public init<C: Clock>(bytesPerSecond: Int64?, burst: Duration = .milliseconds(100),
                          clock: C = ContinuousClock()) where C.Duration == Duration {
        let origin = clock.now
        let now: @Sendable () -> Duration = { origin.duration(to: clock.now) }
        self.now = now
        self.parent = nil
        self.burst = max(.zero, burst)
        let rate = Self.normalized(bytesPerSecond)
        bucket = Mutex(Bucket(rate: rate, tokens: rate.map { Self.capacity($0, burst) } ?? 0, stamp: now()))
        limited = Atomic(rate != nil)
    }

    /// Creates a limiter inside `parent`, on its clock, that starts full: every byte taken is
    /// taken from both, and the wait is the longer of the two (``consume(_:)``, ``delay``). A
    /// download's budget is made this way inside the downloader's overall limiter; its own
    /// ``bytesPerSecond`` may be `nil` (then only the parent limits).
    ///
    /// - Parameters:
    ///   - bytesPerSecond: this limiter's own limit; `nil` or a value below 1 for none.
    ///   - burst: how much time's worth of bytes of its own limit may pass at once after an idle
    ///     spell.
    ///   - parent: the limiter above this one.
    public init(bytesPerSecond: Int64?, burst: Duration = .milliseconds(100), within parent: BandwidthLimiter) {
        let now = parent.now
        let burst = max(.zero, burst)
        self.now = now
        self.parent = parent
        self.burst = burst
        let rate = Self.normalized(bytesPerSecond)
        bucket = Mutex(Bucket(rate: rate, tokens: rate.map { Self.capacity($0, burst) } ?? 0, stamp: now()))
        limited = Atomic(rate != nil)
    }

    /// The limit in bytes per second, `nil` for none (of this limiter's own: a parent's limit
    /// still holds). Setting it takes effect at once for every
    /// transfer that draws from the limiter: the next ``delay`` is computed at the new rate.
    public var bytesPerSecond: Int64? {
        get { bucket.withLock { $0.rate } }
        set {
            let rate = Self.normalized(newValue)
            let instant = now()
            bucket.withLock { b in
                refill(&b, at: instant)
                if b.rate == nil, let rate { b.tokens = Self.capacity(rate, burst) }
                b.rate = rate
                b.generation += 1
                if rate == nil { b.tokens = 0 }
                limited.store(rate != nil, ordering: .relaxed)
            }
        }
    }

    /// Takes `bytes` that passed from the bucket (and from the parent's) and returns how long the
    /// taker should wait before more pass (zero when no bucket is in debt, or without a limit).
    ///
    /// Each taker waits the delay its own bytes got: takers are served in the order they took,
    /// and none is starved by others that happen to ask first once the debt is paid.
    @discardableResult
    public func consume(_ bytes: Int) -> Duration {
        take(bytes).wait
    }

    /// ``consume(_:)``, with the instant it was taken on the limiter's clock and the limit's
    /// generation then (for ``TransferWriter/pacingDelay``).
    func take(_ bytes: Int) -> (wait: Duration, at: Duration, generation: Int) {
        let instant = now()
        let own = bucket.withLock { b in
            guard b.rate != nil else { return (wait: Duration.zero, generation: b.generation) }
            refill(&b, at: instant)
            b.tokens -= Double(bytes)
            return (wait: wait(b), generation: b.generation)
        }
        guard let parent else { return (own.wait, instant, own.generation) }
        let above = parent.take(bytes)
        return (max(own.wait, above.wait), instant, own.generation + above.generation)
    }

    /// Whether the limiter was made inside another (a download's budget).
    var isNested: Bool { parent != nil }

    /// Whether a limit is set now, here or above (a lock-free read for the body path).
    var isLimited: Bool { limited.load(ordering: .relaxed) || parent?.isLimited == true }

    /// Whether this limiter is a download's own budget (nested in the overall one) with a limit.
    var isLimitedBudget: Bool { parent != nil && limited.load(ordering: .relaxed) }

    /// The time on the limiter's clock.
    var clockNow: Duration { now() }

    /// How many times the limit changed, here and above.
    var generation: Int { bucket.withLock { $0.generation } + (parent?.generation ?? 0) }

    /// How long until the bucket (and the parent's) is out of debt, without taking anything; zero
    /// without a limit.
    public var delay: Duration {
        let instant = now()
        let own = bucket.withLock { b in
            refill(&b, at: instant)
            return wait(b)
        }
        return max(own, parent?.delay ?? .zero)
    }

    private func refill(_ b: inout Bucket, at instant: Duration) {
        let elapsed = instant - b.stamp
        b.stamp = instant
        guard let rate = b.rate, elapsed > .zero else { return }
        b.tokens = min(Self.capacity(rate, burst), b.tokens + Self.seconds(elapsed) * Double(rate))
    }

    private func wait(_ b: Bucket) -> Duration {
        guard let rate = b.rate, b.tokens < 0 else { return .zero }
        // Whole nanoseconds, rounded: a debt of 2,000 bytes at 10,000 B/s is exactly 200 ms. A
        // debt of more than ~292 years (Int64 nanoseconds) is clamped: converting it would trap.
        let nanoseconds = (-b.tokens * 1e9 / Double(rate)).rounded()
        return .nanoseconds(nanoseconds < Self.longestWait ? Int64(nanoseconds) : Int64.max)
    }

    /// The longest wait in nanoseconds that converts to `Int64` (the largest `Double` below 2⁶³).
    private static let longestWait = Double(Int64.max).nextDown

    private static func capacity(_ rate: Int64, _ burst: Duration) -> Double {
        seconds(burst) * Double(rate)
    }

    private static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }

    static func normalized(_ rate: Int64?) -> Int64? {
        rate.flatMap { $0 > 0 ? $0 : nil }
    }
}
