import Synchronization

/// The queue between the downloader and its ``Journal``'s consumer task.
///
/// Hand-made rather than an `AsyncStream`: the consumer takes everything posted since its last
/// look in one wake-up, and posting costs an append under a lock (thousands of state changes a
/// second with small files). Items posted after ``finish()`` are dropped, except that a barrier is
/// released and a `perform` runs at once, so nobody waits forever.
final class JournalQueue: Sendable {
    private struct State {
        var items: [Journal.Item] = []
        var waiter: CheckedContinuation<[Journal.Item]?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    func post(_ item: Journal.Item) {
        state.withLock { s in
            guard !s.finished else {
                if case .barrier(let continuation) = item { continuation.resume() }
                if case .perform(let work) = item { work() }
                return
            }
            if let waiter = s.waiter {
                s.waiter = nil
                waiter.resume(returning: [item])
            } else {
                s.items.append(item)
            }
        }
    }

    /// Everything posted since the last call, waiting when there is nothing; `nil` once finished
    /// and empty.
    func next() async -> [Journal.Item]? {
        await withCheckedContinuation { continuation in
            state.withLock { s in
                if !s.items.isEmpty {
                    let batch = s.items
                    s.items.removeAll(keepingCapacity: true)
                    continuation.resume(returning: batch)
                } else if s.finished {
                    continuation.resume(returning: nil)
                } else {
                    s.waiter = continuation
                }
            }
        }
    }

    /// No more items: the consumer gets what is queued, then `nil`.
    func finish() {
        state.withLock { s in
            s.finished = true
            if let waiter = s.waiter {
                s.waiter = nil
                waiter.resume(returning: nil)
            }
        }
    }
}
