import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a blocking job on a `SerialThread` can reach of the task that waits for it: cancellation
/// (a flag and a pipe that wakes `poll`), deadlines, and the one auth door.
///
/// The job asks ``ask(_:)``; the waiting task calls `TransferRequest.authenticate` (so the
/// delegate always runs in the transfer's task, never on the I/O thread) and hands the answer back.
final class IOJob: @unchecked Sendable {
    private enum Event {
        case ask(AuthChallenge)
        case done
    }

    private let condition = NSCondition()
    private var cancelled = false
    private var pendingEvent: Event?
    private var waiter: CheckedContinuation<Event, Never>?
    private var answer: AuthDisposition?

    /// Readable once the job is cancelled: poll it next to the socket (the read end of a pipe).
    let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// The idle limit: a wait without progress for this long fails with `.timedOut`.
    private(set) var idleTimeout: Duration
    private let totalDeadline: ContinuousClock.Instant
    private var idleDeadline: ContinuousClock.Instant

    init(idleTimeout: Duration, totalTimeout: Duration) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw DownloadError(.transport, "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        wakeFD = fds[0]
        wakeWriteFD = fds[1]
        self.idleTimeout = idleTimeout
        let now = ContinuousClock.now
        totalDeadline = now.advanced(by: totalTimeout)
        idleDeadline = now.advanced(by: idleTimeout)
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    // MARK: the task's side

    /// Runs `body` on `thread` and waits for it, answering its auth questions with `authenticate`.
    /// Cancelling the calling task makes the job's next wait throw `.cancelled`; this returns
    /// only after the job has finished, so nothing touches the writer afterwards.
    static func run<T: Sendable>(
        on thread: SerialThread,
        idleTimeout: Duration,
        totalTimeout: Duration,
        authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition,
        _ body: @escaping @Sendable (IOJob) throws -> T
    ) async throws -> T {
        let job = try IOJob(idleTimeout: idleTimeout, totalTimeout: totalTimeout)
        let result = ResultBox<T>()
        let accepted = thread.submit {
            do { result.value = .success(try body(job)) } catch { result.value = .failure(error) }
            job.post(.done)
        }
        // The connection was closed (its thread ended) before the job reached it.
        guard accepted else {
            throw DownloadError(.connectionLost, "the SSH session was closed before the transfer could use it",
                                isRetryable: true)
        }
        await withTaskCancellationHandler {
            while true {
                let event = await job.nextEvent()
                switch event {
                case .ask(let challenge):
                    let disposition = await authenticate(challenge)
                    job.reply(disposition)
                case .done:
                    return
                }
            }
        } onCancel: {
            job.cancel()
        }
        return try result.value!.get()
    }

    private func nextEvent() async -> Event {
        await withCheckedContinuation { continuation in
            condition.lock()
            if let event = pendingEvent {
                pendingEvent = nil
                condition.unlock()
                continuation.resume(returning: event)
            } else {
                waiter = continuation
                condition.unlock()
            }
        }
    }

    private func reply(_ disposition: AuthDisposition) {
        condition.lock()
        answer = disposition
        condition.broadcast()
        condition.unlock()
    }

    /// Marks the job cancelled and wakes it wherever it waits.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
        var one: UInt8 = 1
        _ = write(wakeWriteFD, &one, 1)
    }

    // MARK: the I/O thread's side

    private func post(_ event: Event) {
        condition.lock()
        if let waiter {
            self.waiter = nil
            condition.unlock()
            waiter.resume(returning: event)
        } else {
            pendingEvent = event
            condition.unlock()
        }
    }

    /// Asks the transfer's task to answer `challenge` and blocks this I/O thread until it does.
    /// The time spent here does not count against the idle timeout.
    /// - Throws: `.cancelled` when the transfer is cancelled meanwhile.
    func ask(_ challenge: AuthChallenge) throws -> AuthDisposition {
        condition.lock()
        answer = nil
        condition.unlock()
        post(.ask(challenge))
        condition.lock()
        defer { condition.unlock() }
        while answer == nil && !cancelled { condition.wait() }
        guard let disposition = answer, !cancelled else {
            throw DownloadError(.cancelled, "the transfer was cancelled")
        }
        answer = nil
        idleDeadline = ContinuousClock.now.advanced(by: idleTimeout)
        return disposition
    }

    /// Throws `.cancelled` when the job was cancelled.
    func checkCancelled() throws {
        condition.lock()
        let isCancelled = cancelled
        condition.unlock()
        if isCancelled { throw DownloadError(.cancelled, "the transfer was cancelled") }
    }

    /// Switches to another idle limit (the connect timeout while connecting, the request
    /// timeout while transferring) and starts it now.
    func setIdleTimeout(_ timeout: Duration) {
        idleTimeout = timeout
        progressed()
    }

    /// Something moved: the idle timeout starts again.
    func progressed() {
        idleDeadline = ContinuousClock.now.advanced(by: idleTimeout)
    }

    /// Waits until `fd` is ready for `events` (POLLIN/POLLOUT), the job is cancelled, or a
    /// deadline passes. Never busy-waits.
    /// - Throws: `.cancelled`, `.timedOut` (idle) or `.resourceTimedOut` (total).
    func wait(fd: Int32, events: Int16) throws {
        let now = ContinuousClock.now
        let deadline = min(idleDeadline, totalDeadline)
        let remaining = deadline - now
        if remaining <= .zero { try timeout() }
        let n = poll(fd, events: events, for: remaining)
        if n < 0 && errno != EINTR {
            throw DownloadError(.transport, "poll failed: \(String(cString: strerror(errno)))")
        }
        try checkCancelled()
        if n == 0 && ContinuousClock.now >= deadline { try timeout() }
    }

    /// Waits until `instant` (a rate limit), waking at once when the job is cancelled.
    func pause(until instant: ContinuousClock.Instant) throws {
        while true {
            let remaining = instant - ContinuousClock.now
            if remaining <= .zero { break }
            _ = poll(-1, events: 0, for: remaining)
            try checkCancelled()
        }
        progressed()
    }

    /// Polls `fd` for `events` (none when `fd` is negative) and the wake pipe, for at most
    /// `remaining` rounded up to the next millisecond; answers what `poll` answers.
    private func poll(_ fd: Int32, events: Int16, for remaining: Duration) -> Int32 {
        let (seconds, attoseconds) = remaining.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
        var fds = (pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
        return withUnsafeMutableBytes(of: &fds) { bytes in
            Glibc.poll(bytes.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, milliseconds)
        }
    }

    private func timeout() throws -> Never {
        if ContinuousClock.now >= totalDeadline {
            throw DownloadError(.resourceTimedOut, "the transfer took longer than its resource timeout")
        }
        throw DownloadError(.timedOut, "no data arrived for \(idleTimeout)")
    }
}

/// The result of a job, written on the I/O thread before the task is woken.
private final class ResultBox<T>: @unchecked Sendable {
    var value: Result<T, any Error>?
}
