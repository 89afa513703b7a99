import Synchronization

/// A `Clock` whose time moves only when a test says so.
///
/// Hand it to the code under test wherever a `Clock<Duration>` is taken (the `Downloader`'s
/// configuration, ``MockResource/chunkDelay``), then drive time from the test:
///
/// ```swift
/// let clock = ManualClock()
/// let task = Task { try await clock.sleep(for: .seconds(5)) }
/// await clock.waitForSleepers(atLeast: 1)   // the task is parked on the clock
/// clock.advance(by: .seconds(5))            // ...and now it is resumed
/// try await task.value
/// ```
///
/// Guarantees:
/// - ``now`` starts at ``Instant/zero`` and changes only through ``advance(by:)`` and
///   ``advance(to:)``; it never moves backwards.
/// - ``sleep(until:tolerance:)`` returns at once when the deadline is not after ``now``; otherwise it
///   suspends until an `advance` reaches the deadline, or throws `CancellationError` as soon as its
///   task is cancelled (the sleeper is removed from the clock first).
/// - An `advance` resumes every sleeper whose deadline it reached, in deadline order (sleepers with
///   equal deadlines in the order they went to sleep), before it returns. Resuming only makes the
///   sleeping tasks runnable; when they actually run is up to their executors.
/// - ``sleeperCount`` and ``waitForSleepers(atLeast:)`` let a test wait until the code under test
///   is parked on the clock, without sleeping or yielding in a loop.
///
/// All members may be called from any thread or task.
public final class ManualClock: Clock, Sendable {
    public typealias Duration = Swift.Duration

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant.zero
        var nextID: UInt64 = 0
        /// Suspended sleepers by id; ids grow, so sorting by (deadline, id) is deadline then FIFO.
        var sleepers: [UInt64: Sleeper] = [:]
        /// Tasks waiting in ``waitForSleepers(atLeast:)`` by id.
        var watchers: [UInt64: Watcher] = [:]

        mutating func takeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Removes and returns the watchers whose count is reached.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { $0.value.count <= sleepers.count }
            for id in ready.keys { watchers[id] = nil }
            return ready.sorted { $0.key < $1.key }.map(\.value.continuation)
        }
    }

    private let state = Mutex(State())

    /// Creates a clock whose ``now`` is ``Instant/zero``.
    public init() {}

    /// The current instant: moved only by ``advance(by:)`` and ``advance(to:)``.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock can represent any instant exactly.
    public var minimumResolution: Duration { .zero }

    /// The number of tasks suspended in ``sleep(until:tolerance:)`` right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines of the suspended sleepers, earliest first: handy to advance to the next one.
    public var pendingDeadlines: [Instant] {
        state.withLock { $0.sleepers.values.map(\.deadline).sorted() }
    }

    /// Suspends until ``now`` reaches `deadline`.
    ///
    /// Returns at once when `deadline <= now`. Otherwise the caller is counted in
    /// ``sleeperCount`` until an ``advance(to:)`` reaches the deadline, or until its task is
    /// cancelled, in which case it throws `CancellationError` at once. `tolerance` is ignored.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before or while it sleeps.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { $0.takeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) = state.withLock { s in
                    // Checked under the lock: a cancellation that lands after this point finds the
                    // sleeper registered and resumes it; one that landed before is seen here.
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= s.now { return (.success(()), []) }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, s.satisfiedWatchers())
                }
                if let result = outcome.0 { continuation.resume(with: result) }
                for watcher in outcome.1 { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves ``now`` forward by `duration` (a negative duration does nothing) and resumes every
    /// sleeper whose deadline is reached, in deadline order.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now.advanced(by: duration) }
        advance(to: target)
    }

    /// Moves ``now`` to `instant` if it is later (the clock never moves backwards) and resumes
    /// every sleeper whose deadline is now reached, earliest deadline first, equal deadlines in the
    /// order they went to sleep.
    public func advance(to instant: Instant) {
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { s in
            if instant > s.now { s.now = instant }
            let now = s.now
            let ready = s.sleepers.filter { $0.value.deadline <= now }
                .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            for entry in ready { s.sleepers[entry.key] = nil }
            return ready.map(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Advances to the earliest pending deadline, if there is one, and returns it.
    @discardableResult
    public func advanceToNextDeadline() -> Instant? {
        guard let next = pendingDeadlines.first else { return nil }
        advance(to: next)
        return next
    }

    /// Returns once at least `n` tasks are suspended in ``sleep(until:tolerance:)``.
    ///
    /// Returns at once when ``sleeperCount`` is already `n` or more, and also returns (without
    /// error) when the waiting task is cancelled, so that a test never hangs on it.
    public func waitForSleepers(atLeast n: Int) async {
        let id = state.withLock { $0.takeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { s in
                    if Task.isCancelled || s.sleepers.count >= n { return true }
                    s.watchers[id] = Watcher(count: n, continuation: continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            let watcher = state.withLock { $0.watchers.removeValue(forKey: id) }
            watcher?.continuation.resume()
        }
    }
}
