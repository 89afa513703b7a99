import Synchronization

/// Where a test double stops until the test lets it go on, and how the test learns that it got
/// there (no sleeping, no polling).
final class Gate: Sendable {
    private let state = Mutex((arrivals: 0, parked: [CheckedContinuation<Void, Never>](),
                               watchers: [CheckedContinuation<Void, Never>]()))

    /// Counts an arrival without waiting: wakes whoever awaits ``waitForArrival()``.
    func arrive() {
        for watcher in state.withLock({ s in s.arrivals += 1; defer { s.watchers = [] }; return s.watchers }) {
            watcher.resume()
        }
    }

    /// Arrives, then waits until ``release()``.
    func park() async {
        await withCheckedContinuation { continuation in
            let watchers = state.withLock { s in
                s.arrivals += 1
                s.parked.append(continuation)
                defer { s.watchers = [] }
                return s.watchers
            }
            for watcher in watchers { watcher.resume() }
        }
    }

    /// Returns once something has arrived (at once if it already has).
    func waitForArrival() async {
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { s in
                if s.arrivals == 0 { s.watchers.append(continuation) }
                return s.arrivals > 0
            }
            if arrived { continuation.resume() }
        }
    }

    /// Lets everything parked go on.
    func release() {
        for continuation in state.withLock({ s in defer { s.parked = [] }; return s.parked }) { continuation.resume() }
    }
}
