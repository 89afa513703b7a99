import Foundation

/// One dedicated OS thread that runs closures one at a time, in the order they were submitted.
///
/// Work that blocks (libssh2 calls of one SSH session, SQLite calls and their `fsync`) runs here,
/// so it never blocks Swift's cooperative thread pool, and calls made on one thread never race.
/// The thread takes every queued closure at once and runs the batch without holding the lock.
/// After ``stop()`` it runs what is queued (including closures submitted meanwhile), then ends;
/// from then on ``submit(_:)`` refuses (returns `false`): a closure given to an ended thread would
/// never run, and whoever awaited it would wait for ever.
package final class SerialThread: @unchecked Sendable {
    // `jobs`, `stopping`, `ended` and `thread` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopping = false
    private var ended = false
    private var thread: pthread_t?

    /// Starts the thread, named `name` (visible in debuggers and `top -H`; Linux shows at most
    /// 15 bytes of it).
    package init(name: String) {
        let thread = Thread { [self] in
            Thread.current.name = name // on Linux only the thread itself can name itself
            self.run()
        }
        thread.start()
    }

    /// Queues `job`; it runs after every job submitted before it. Returns `false`, and `job` is
    /// dropped without running, when the thread has ended (``stop()`` was called and the queue
    /// ran out): the caller must not wait for it.
    @discardableResult
    package func submit(_ job: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !ended else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Lets the queued jobs run, then ends the thread. Jobs submitted meanwhile still run first.
    package func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    /// Whether the thread has ended (after ``stop()``, once its queue ran out).
    package var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// Whether the caller runs on this thread.
    package var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    private func run() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        var batch: [() -> Void] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                ended = true
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job() }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
