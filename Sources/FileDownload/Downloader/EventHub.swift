import Synchronization

/// Fans events out to every `events()` subscriber and, on a task of its own, to the delegate, in
/// the order they were published.
final class EventHub: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<DownloadEvent>.Continuation] = [:]
        var observers: [@Sendable (DownloadEvent) -> Void] = []
        var finished = false
    }

    private let subscribers = Mutex(Subscribers())
    private let delegateFeed: AsyncStream<DownloadEvent>.Continuation?
    private let delegateTask: Task<Void, Never>?

    init(delegate: (any DownloaderDelegate)?) {
        if let delegate {
            let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .unbounded)
            delegateFeed = continuation
            delegateTask = Task {
                for await event in stream { await EventHub.deliver(event, to: delegate) }
            }
        } else {
            delegateFeed = nil
            delegateTask = nil
        }
    }

    func subscribe() -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .unbounded)
        let key: Int? = subscribers.withLock { s in
            if s.finished { return nil }
            let key = s.next
            s.next += 1
            s.continuations[key] = continuation
            return key
        }
        if let key {
            continuation.onTermination = { [weak self] _ in
                _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: key) }
            }
        } else {
            continuation.finish()
        }
        return stream
    }

    func observe(_ observer: @escaping @Sendable (DownloadEvent) -> Void) {
        subscribers.withLock { $0.observers.append(observer) }
    }

    func publish(_ events: [DownloadEvent]) {
        guard !events.isEmpty else { return }
        let observers = subscribers.withLock { s in
            for continuation in s.continuations.values {
                for event in events { continuation.yield(event) }
            }
            return s.observers
        }
        for observer in observers {
            for event in events { observer(event) }
        }
        if let delegateFeed {
            for event in events { delegateFeed.yield(event) }
        }
    }

    /// Ends every subscriber's sequence and lets the delegate task finish what it has.
    func finish() async {
        let all = subscribers.withLock { s -> [AsyncStream<DownloadEvent>.Continuation] in
            s.finished = true
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        for c in all { c.finish() }
        delegateFeed?.finish()
        await delegateTask?.value
    }

    private static func deliver(_ event: DownloadEvent, to delegate: any DownloaderDelegate) async {
        switch event {
        case .stateChanged(let id, let state): await delegate.downloadDidChangeState(id: id, state: state)
        case .progress(let id, let progress): await delegate.downloadProgressDidChange(id: id, progress: progress)
        case .totalProgress(let total): await delegate.totalProgressDidChange(total)
        case .restarted, .needsFreshURL, .urlChanged, .removed: break  // the question is asked apart; a removal is the caller's
        case .resumed(let id): await delegate.downloadWillResume(id: id)
        case .paused(let id, let data): await delegate.downloadDidPause(id: id, resumeData: data)
        case .interrupted(let id, let error, let retryIn):
            await delegate.downloadWasInterrupted(id: id, error: error, retryIn: retryIn)
        case .completed(let id, let file): await delegate.downloadDidComplete(id: id, file: file)
        case .failed(let id, let error, let data): await delegate.downloadDidFail(id: id, error: error, resumeData: data)
        case .cancelled(let id): await delegate.downloadDidCancel(id: id)
        case .activityCountChanged(let count): await delegate.activityCountDidChange(count)
        case .onHold(let id, let reason): await delegate.downloadIsOnHold(id: id, reason: reason)
        }
    }
}
