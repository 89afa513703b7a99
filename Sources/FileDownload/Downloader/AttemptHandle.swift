import Synchronization

/// One running attempt: its task, its sink, and why the downloader stopped it (if it did).
final class AttemptHandle: Sendable {
    /// Why the downloader ended an attempt early.
    enum StopReason: Sendable {
        case pause
        case cancel
        case shutdown
        case fail(DownloadError)
    }

    let startedAt: Duration
    /// Set once the transfer task exists.
    let task = Mutex<Task<Void, Never>?>(nil)
    /// Set once the staging file is open.
    let sink = Mutex<TransferSink?>(nil)
    let stopReason = Mutex<StopReason?>(nil)
    /// Challenges being answered right now; the idle timeout does not run meanwhile.
    let challengesInFlight = Atomic<Int>(0)

    init(startedAt: Duration) {
        self.startedAt = startedAt
    }

    /// Asks the attempt to stop for `reason` (the first reason wins) and cancels its task.
    func stop(_ reason: StopReason) {
        stopReason.withLock { if $0 == nil { $0 = reason } }
        task.withLock { $0 }?.cancel()
    }

    var currentSink: TransferSink? { sink.withLock { $0 } }
}
