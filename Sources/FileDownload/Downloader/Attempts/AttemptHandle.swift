import Synchronization

/// One running attempt: its task, its sink, and why the downloader stopped it (if it did).
final class AttemptHandle: Sendable {
    /// Why the downloader ended an attempt early.
    enum StopReason: Sendable {
        case pause
        case cancel
        case shutdown
        case fail(DownloadError)
        /// The download's URL changed: it continues at once at the new one.
        case switchURL
    }

    let startedAt: Duration
    /// Set once the transfer task exists.
    let task = Mutex<Task<Void, Never>?>(nil)
    /// Set once the staging file is open.
    let sink = Mutex<TransferSink?>(nil)
    let stopReason = Mutex<StopReason?>(nil)
    /// The segments when the attempt fetches its file over several connections (inactive
    /// otherwise).
    let segments = SegmentBoard()
    /// What wakes the attempt's segment coordinator, while one runs
    /// (``Attempt/runSegments(options:seam:primary:)``).
    private let segmentWake = Mutex<(@Sendable () -> Void)?>(nil)
    /// Challenges being answered right now; the idle timeout does not run meanwhile.
    let challengesInFlight = Atomic<Int>(0)
    /// Whether the downloader booked the attempt's end, who waits for it, and the deadline task
    /// that abandons the attempt if it does not end in time after a stop.
    private let ending = Mutex<(ended: Bool, waiters: [CheckedContinuation<Void, Never>], deadline: Task<Void, Never>?)>(
        (false, [], nil))

    init(startedAt: Duration) {
        self.startedAt = startedAt
    }

    /// Asks the attempt to stop for `reason` (the first reason wins) and cancels its task.
    func stop(_ reason: StopReason) {
        stopReason.withLock { if $0 == nil { $0 = reason } }
        task.withLock { $0 }?.cancel()
    }

    var currentSink: TransferSink? { sink.withLock { $0 } }

    /// Sets (`nil`: clears) what ``wakeSegments()`` calls.
    func onSegmentWake(_ wake: (@Sendable () -> Void)?) {
        segmentWake.withLock { $0 = wake }
    }

    /// Tells the segment coordinator, if one runs, that more connections may be allowed.
    func wakeSegments() {
        segmentWake.withLock { $0 }?()
    }

    /// Returns once ``markEnded()`` was called (at once if it was).
    func waitUntilEnded() async {
        await withCheckedContinuation { continuation in
            let ended = ending.withLock { s in
                if !s.ended { s.waiters.append(continuation) }
                return s.ended
            }
            if ended { continuation.resume() }
        }
    }

    /// Makes and keeps `make()`'s task as the stop deadline, unless there is one already or the
    /// attempt has ended (then `make` is not called).
    func armDeadline(_ make: () -> Task<Void, Never>) {
        ending.withLock { s in
            guard !s.ended, s.deadline == nil else { return }
            s.deadline = make()
        }
    }

    /// The downloader booked the end: cancels the deadline and resumes every waiter.
    func markEnded() {
        let (waiters, deadline) = ending.withLock { s in
            s.ended = true
            defer { s.waiters = []; s.deadline = nil }
            return (s.waiters, s.deadline)
        }
        deadline?.cancel()
        for waiter in waiters { waiter.resume() }
    }
}
