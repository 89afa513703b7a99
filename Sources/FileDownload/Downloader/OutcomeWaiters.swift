import Synchronization

/// The callers of ``Downloader/outcome(of:)`` that wait, by download id.
///
/// Each wait has a token, so that the cancellation of the waiting task (which runs on any thread,
/// possibly before the wait is registered) and the downloader's answer can race: whichever comes
/// first resumes the continuation, the other finds nothing to do.
final class OutcomeWaiters: Sendable {
    typealias Waiter = CheckedContinuation<DownloadOutcome, any Error>

    private struct State {
        var nextToken: UInt64 = 0
        var waiting: [String: [UInt64: Waiter]] = [:]
        /// Tokens cancelled before their wait was registered.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())

    func makeToken() -> UInt64 {
        state.withLock { s in
            defer { s.nextToken += 1 }
            return s.nextToken
        }
    }

    /// Whether anybody waits for `id` (cheap; called on every state change).
    func hasWaiters(for id: String) -> Bool {
        state.withLock { $0.waiting[id] != nil }
    }

    /// How many waits for `id` are registered.
    func count(for id: String) -> Int {
        state.withLock { $0.waiting[id]?.count ?? 0 }
    }

    /// Every id somebody waits for.
    var ids: [String] {
        state.withLock { Array($0.waiting.keys) }
    }

    /// Registers a wait; when `token` was cancelled already, it ends at once with
    /// `CancellationError`.
    func add(_ token: UInt64, id: String, _ waiter: Waiter) {
        let cancelled = state.withLock { s in
            if s.cancelledEarly.remove(token) != nil { return true }
            s.waiting[id, default: [:]][token] = waiter
            return false
        }
        if cancelled { waiter.resume(throwing: CancellationError()) }
    }

    /// Ends the wait of `token` (for `id`) with `CancellationError`, if it still waits.
    func cancel(_ token: UInt64, id: String) {
        let waiter: Waiter? = state.withLock { s in
            guard let waiter = s.waiting[id]?.removeValue(forKey: token) else {
                s.cancelledEarly.insert(token)
                return nil
            }
            if s.waiting[id]?.isEmpty == true { s.waiting[id] = nil }
            return waiter
        }
        waiter?.resume(throwing: CancellationError())
    }

    /// Forgets `token` once its wait is over (a cancellation that came after the answer left it).
    func forget(_ token: UInt64) {
        _ = state.withLock { $0.cancelledEarly.remove(token) }
    }

    /// Takes every wait for `id` out of the registry; the caller resumes them.
    func take(_ id: String) -> [Waiter] {
        state.withLock { s in
            guard let waiters = s.waiting.removeValue(forKey: id) else { return [] }
            return Array(waiters.values)
        }
    }
}
