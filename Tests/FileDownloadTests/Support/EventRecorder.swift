import FileDownload
import Foundation
import Synchronization
import Testing

/// Collects a downloader's events (as an observer: after `settle()` it has every event) and lets
/// a test await the one it expects (no sleeping).
///
/// Every wait is bounded by ``limit`` of real time: an event that never comes (the behaviour under
/// test is broken) records an issue naming what was awaited, and the wait returns
/// ``timedOutEvent`` so the test goes on to fail instead of hanging until the suite's time limit.
final class EventRecorder: Sendable {
    private struct Waiter {
        let number: Int
        let predicate: @Sendable (DownloadEvent) -> Bool
        let continuation: CheckedContinuation<DownloadEvent, Never>
        var bound: Task<Void, Never>?
    }

    /// What one look at the events under the lock found: the event, or the number of the waiter
    /// registered for it.
    private enum Lookup {
        case found(DownloadEvent)
        case waiting(Int)
    }

    private struct State {
        var events: [DownloadEvent] = []
        var waiters: [Waiter] = []
        var nextWaiter = 0
    }

    /// How long a wait for an event may take in real time: far longer than any test needs on a busy
    /// machine (tests run on the manual clock), short of the suite's time limit.
    let limit: Duration

    /// What a wait returns when its event did not come within ``limit`` (an issue is recorded).
    static let timedOutEvent = DownloadEvent.failed(
        id: "<no such event>", error: DownloadError(.timedOut, "the awaited event did not come"), resumeData: nil)

    private final class Box: Sendable {
        let state = Mutex(State())
    }

    private let box = Box()

    init(_ downloader: Downloader, limit: Duration = .seconds(120)) {
        self.limit = limit
        let box = self.box
        downloader.observe { event in
            let ready = box.state.withLock { s -> [Waiter] in
                s.events.append(event)
                var ready: [Waiter] = []
                s.waiters.removeAll { waiter in
                    if waiter.predicate(event) {
                        ready.append(waiter)
                        return true
                    }
                    return false
                }
                return ready
            }
            for waiter in ready {
                waiter.bound?.cancel()
                waiter.continuation.resume(returning: event)
            }
        }
    }

    var events: [DownloadEvent] { box.state.withLock { $0.events } }

    var count: Int { box.state.withLock { $0.events.count } }

    /// The first event (at index `from` or later) that matches, awaiting it if it has not come yet
    /// (at most ``limit``; then an issue is recorded and ``timedOutEvent`` returned). A wait whose
    /// task is cancelled (the suite's time limit ran out) returns ``timedOutEvent`` at once, so a
    /// cancelled test ends instead of waiting out every bound in turn.
    @discardableResult
    func first(
        from: Int = 0, sourceLocation: SourceLocation = #_sourceLocation,
        where predicate: @escaping @Sendable (DownloadEvent) -> Bool
    ) async -> DownloadEvent {
        let box = self.box
        let limit = self.limit
        let number = box.state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        /// Takes the waiter out (if it is still there) so that exactly one party resumes it.
        @Sendable func take() -> Waiter? {
            box.state.withLock { s -> Waiter? in
                guard let index = s.waiters.firstIndex(where: { $0.number == number }) else { return nil }
                return s.waiters.remove(at: index)
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let lookup = box.state.withLock { s -> Lookup in
                    if from < s.events.count, let hit = s.events[from...].first(where: predicate) { return .found(hit) }
                    s.waiters.append(Waiter(number: number, predicate: predicate, continuation: continuation))
                    return .waiting(number)
                }
                guard case .waiting = lookup else {
                    if case .found(let hit) = lookup { continuation.resume(returning: hit) }
                    return
                }
                if Task.isCancelled, let waiter = take() {
                    waiter.continuation.resume(returning: Self.timedOutEvent)
                    return
                }
                let bound = Task {
                    try? await Task.sleep(for: limit)
                    guard !Task.isCancelled, let expired = take() else { return }
                    Issue.record("the awaited event did not come within \(limit)", sourceLocation: sourceLocation)
                    expired.continuation.resume(returning: Self.timedOutEvent)
                }
                box.state.withLock { s in
                    if let index = s.waiters.firstIndex(where: { $0.number == number }) {
                        s.waiters[index].bound = bound
                    } else {
                        bound.cancel()
                    }
                }
            }
        } onCancel: {
            guard let waiter = take() else { return }
            waiter.bound?.cancel()
            waiter.continuation.resume(returning: Self.timedOutEvent)
        }
    }

    /// Awaits the next `stateChanged` of `id` to `state` at index `from` or later.
    @discardableResult
    func state(
        _ id: String, _ wanted: DownloadState, from: Int = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> DownloadEvent {
        await first(from: from, sourceLocation: sourceLocation) { event in
            if case .stateChanged(id, wanted) = event { return true }
            return false
        }
    }

    /// The error of the first `failed` event of `id` at index `from` or later (awaited), and its
    /// resume data.
    func failure(
        of id: String, from: Int = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (error: DownloadError, resumeData: ResumeData?) {
        let event = await first(from: from, sourceLocation: sourceLocation) {
            if case .failed(id, _, _) = $0 { true } else { false }
        }
        guard case .failed(_, let error, let data) = event else { fatalError("unreachable") }
        return (error, data)
    }

    /// The error and retry delay of the first `interrupted` event of `id` at index `from` or later.
    func interruption(
        of id: String, from: Int = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (error: DownloadError, retryIn: Duration?) {
        let event = await first(from: from, sourceLocation: sourceLocation) {
            if case .interrupted(id, _, _) = $0 { true } else { false }
        }
        switch event {
        case .interrupted(_, let error, let retryIn): return (error, retryIn)
        case .failed(_, let error, _): return (error, nil) // timedOutEvent
        default: fatalError("unreachable")
        }
    }

    /// Events about `id`, in order.
    func events(of id: String) -> [DownloadEvent] { events.filter { $0.id == id } }

    /// The states `id` went through, in order.
    func states(of id: String) -> [DownloadState] {
        events.compactMap { if case .stateChanged(id, let s) = $0 { s } else { nil } }
    }

    /// A short name per event of `id` ("state:waiting", "progress", "completed", ...).
    func names(of id: String) -> [String] {
        events(of: id).map(\.shortName)
    }
}

extension DownloadEvent {
    var shortName: String {
        switch self {
        case .stateChanged(_, let s): "state:\(s)"
        case .progress: "progress"
        case .totalProgress: "total"
        case .restarted(_, let r): "restarted:\(r.rawValue)"
        case .resumed: "resumed"
        case .paused: "paused"
        case .interrupted: "interrupted"
        case .completed: "completed"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .activityCountChanged(let n): "activity:\(n)"
        case .onHold(_, let r): "onHold:\(r)"
        case .needsFreshURL(_, let r): "needsFreshURL:\(r)"
        case .urlChanged(_, let url): "urlChanged:\(url.absoluteString)"
        case .removed: "removed"
        }
    }
}
