import FileDownload
import Synchronization

/// Collects a downloader's events (as an observer: after `settle()` it has every event) and lets
/// a test await the one it expects (no sleeping).
final class EventRecorder: Sendable {
    private struct State {
        var events: [DownloadEvent] = []
        var waiters: [(predicate: @Sendable (DownloadEvent) -> Bool, continuation: CheckedContinuation<DownloadEvent, Never>)] = []
    }

    private final class Box: Sendable {
        let state = Mutex(State())
    }

    private let box = Box()

    init(_ downloader: Downloader) {
        let box = self.box
        downloader.observe { event in
            let ready = box.state.withLock { s -> [CheckedContinuation<DownloadEvent, Never>] in
                s.events.append(event)
                var ready: [CheckedContinuation<DownloadEvent, Never>] = []
                s.waiters.removeAll { waiter in
                    if waiter.predicate(event) {
                        ready.append(waiter.continuation)
                        return true
                    }
                    return false
                }
                return ready
            }
            for c in ready { c.resume(returning: event) }
        }
    }

    var events: [DownloadEvent] { box.state.withLock { $0.events } }

    var count: Int { box.state.withLock { $0.events.count } }

    /// The first event (at index `from` or later) that matches, awaiting it if it has not come yet.
    @discardableResult
    func first(from: Int = 0, where predicate: @escaping @Sendable (DownloadEvent) -> Bool) async -> DownloadEvent {
        await withCheckedContinuation { continuation in
            let found = box.state.withLock { s -> DownloadEvent? in
                if from < s.events.count, let hit = s.events[from...].first(where: predicate) { return hit }
                s.waiters.append((predicate, continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Awaits the next `stateChanged` of `id` to `state` at index `from` or later.
    @discardableResult
    func state(_ id: String, _ wanted: DownloadState, from: Int = 0) async -> DownloadEvent {
        await first(from: from) { event in
            if case .stateChanged(id, wanted) = event { return true }
            return false
        }
    }

    /// The error of the first `failed` event of `id` at index `from` or later (awaited), and its
    /// resume data.
    func failure(of id: String, from: Int = 0) async -> (error: DownloadError, resumeData: ResumeData?) {
        let event = await first(from: from) { if case .failed(id, _, _) = $0 { true } else { false } }
        guard case .failed(_, let error, let data) = event else { fatalError("unreachable") }
        return (error, data)
    }

    /// The error and retry delay of the first `interrupted` event of `id` at index `from` or later.
    func interruption(of id: String, from: Int = 0) async -> (error: DownloadError, retryIn: Duration?) {
        let event = await first(from: from) { if case .interrupted(id, _, _) = $0 { true } else { false } }
        guard case .interrupted(_, let error, let retryIn) = event else { fatalError("unreachable") }
        return (error, retryIn)
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
        }
    }
}
