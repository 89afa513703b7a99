internal import CCurl
import FileDownload
import Foundation
import Synchronization

/// One libcurl multi handle driven by one dedicated I/O thread.
///
/// Other threads only queue commands (add a transfer, cancel one, stop) and wake the thread with
/// `curl_multi_wakeup`; easy handles are added to and removed from the multi handle on the I/O
/// thread only, and their callbacks run there. Finished transfers are removed from the multi
/// handle *before* their task is resumed, so no callback runs after `transfer` returns.
final class CurlMulti: @unchecked Sendable {
    private enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
    }

    private struct Queue {
        var commands: [Command] = []
        var stopping = false
        var stopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private static let globalInit: Bool = ccurl_global_init() == CURLE_OK

    private let multi: UnsafeMutableRawPointer
    private let queue = Mutex(Queue())
    /// The running transfers by easy handle. I/O thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Gathers the pieces of fast reads into large writes. I/O thread only.
    private let gatherer = BodyGatherer(largestPiece: Int(ccurl_max_write_size()))
    /// Transfers paused for the downloader's overall limit, and when to resume them. I/O thread only.
    private let pauses = PauseList()
    /// Transfers handed to `perform` that have not returned yet (any thread).
    private let performing = Atomic<Int>(0)

    /// How many transfers this thread has now; the transport starts new ones on the least busy.
    var load: Int { performing.load(ordering: .relaxed) }

    init() throws {
        guard Self.globalInit, let multi = curl_multi_init() else {
            throw DownloadError(.transport, "libcurl could not be initialised")
        }
        self.multi = multi
        let thread = Thread { [self] in run() }
        thread.name = "FileDownloadHTTP I/O"
        thread.start()
    }

    /// Runs `transfer` to its end. Task cancellation removes it from the multi handle on the I/O
    /// thread within one wake-up and returns ``CurlTransfer/Outcome/cancelled``.
    func perform(_ transfer: CurlTransfer) async -> CurlTransfer.Outcome {
        performing.add(1, ordering: .relaxed)
        defer { performing.subtract(1, ordering: .relaxed) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.install(continuation)
                if !enqueue(.add(transfer)) { transfer.finish(.cancelled) }
            }
        } onCancel: {
            transfer.cancelRequested.store(true, ordering: .releasing)
            _ = enqueue(.cancel(transfer))
        }
    }

    /// Queues a command and wakes the I/O thread; `false` when the thread is stopping. The wake-up
    /// happens under the lock so it never reaches a multi handle that was already cleaned up.
    private func enqueue(_ command: Command) -> Bool {
        queue.withLock { q in
            guard !q.stopping else { return false }
            q.commands.append(command)
            curl_multi_wakeup(multi)
            return true
        }
    }

    /// Asks the I/O thread to cancel every transfer and stop, without waiting.
    func requestStop() {
        queue.withLock { markStopping(&$0) }
    }

    /// Cancels every transfer, stops the I/O thread and releases the multi handle.
    func shutdown() async {
        await withCheckedContinuation { continuation in
            let done = queue.withLock { q -> Bool in
                if q.stopped { return true }
                q.stopWaiters.append(continuation)
                markStopping(&q)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Sets `stopping` and wakes the thread, once; call under the queue's lock, so the wake-up
    /// never reaches a multi handle that was already cleaned up.
    private func markStopping(_ q: inout Queue) {
        guard !q.stopping else { return }
        q.stopping = true
        curl_multi_wakeup(multi)
    }

    // MARK: the I/O thread

    private func run() {
        var running: Int32 = 0
        while true {
            // Swapped out, not copied: an empty queue then costs no allocation per wake-up.
            var commands: [Command] = []
            let stopping = queue.withLock { q in
                swap(&commands, &q.commands)
                return q.stopping
            }
            for command in commands {
                switch command {
                case .add(let transfer):
                    if transfer.cancelRequested.load(ordering: .acquiring) || stopping {
                        transfer.finish(.cancelled)
                    } else if curl_multi_add_handle(multi, transfer.easy) == CURLM_OK {
                        transfer.gatherer = gatherer
                        transfer.pauses = pauses
                        active[transfer.easy] = transfer
                    } else {
                        transfer.finish(.completed(CURLE_FAILED_INIT))
                    }
                case .cancel(let transfer):
                    end(transfer.easy, .cancelled)
                }
            }
            if stopping {
                stop()
                return
            }
            // Resumes the transfers whose pacing delay is over (still running: a cancelled one is
            // gone from `active`); libcurl may hand their held piece over from within the call.
            for transfer in pauses.takeDue(at: .now) where active[transfer.easy] === transfer {
                _ = curl_easy_pause(transfer.easy, ccurl_pause_cont())
            }
            curl_multi_perform(multi, &running)
            gatherer.flush()  // nothing waits in the buffer while the thread sleeps
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                end(easy, .completed(message.pointee.data.result))
            }
            curl_multi_poll(multi, nil, 0, pauses.milliseconds(untilNextAfter: .now, atMost: 1000), nil)
        }
    }

    /// Takes a running transfer out of the multi handle, then lets its task go on with `outcome`.
    private func end(_ easy: UnsafeMutableRawPointer, _ outcome: CurlTransfer.Outcome) {
        guard let transfer = active.removeValue(forKey: easy) else { return }
        curl_multi_remove_handle(multi, easy)
        transfer.finish(outcome)
    }

    private func stop() {
        for easy in Array(active.keys) { end(easy, .cancelled) }
        let waiters = queue.withLock { q in
            q.stopped = true
            // Transfers queued after the last look are refused, never left waiting.
            for case .add(let transfer) in q.commands { transfer.finish(.cancelled) }
            q.commands.removeAll()
            return q.stopWaiters
        }
        curl_multi_cleanup(multi)
        for waiter in waiters { waiter.resume() }
    }
}
