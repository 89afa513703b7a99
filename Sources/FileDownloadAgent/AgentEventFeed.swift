import FileDownload
import Synchronization

/// The queue between the downloader's observer (synchronous, on its event queue) and the task that
/// journals: the task takes everything posted since its last look in one batch, so a burst of
/// events is one store transaction.
final class AgentEventFeed: Sendable {
    enum Item: Sendable {
        case event(DownloadEvent)
        /// Compare the journal with the stored downloads (after a restore): the page after this
        /// id (from the first when `nil`).
        case reconcile(after: String?)
    }

    private struct State {
        var items: [Item] = []
        var waiter: CheckedContinuation<[Item]?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    func post(_ item: Item) {
        let waiter = state.withLock { s -> CheckedContinuation<[Item]?, Never>? in
            guard !s.finished else { return nil }
            s.items.append(item)
            defer { s.waiter = nil }
            return s.waiter
        }
        if let waiter { waiter.resume(returning: take()) }
    }

    /// Everything posted since the last call, waiting when there is nothing; `nil` once finished
    /// and empty.
    func next() async -> [Item]? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> [Item]?? in
                if !s.items.isEmpty {
                    defer { s.items.removeAll(keepingCapacity: true) }
                    return .some(s.items)
                }
                if s.finished { return .some(nil) }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// No more items: the consumer gets what is queued, then `nil`.
    func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<[Item]?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: take())
    }

    private func take() -> [Item]? {
        state.withLock { s in
            if s.items.isEmpty { return s.finished ? nil : [] }
            defer { s.items.removeAll(keepingCapacity: true) }
            return s.items
        }
    }
}
