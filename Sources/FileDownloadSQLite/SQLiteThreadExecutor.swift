import Foundation

/// A serial executor that runs every job on one dedicated thread.
///
/// ``SQLiteDownloadStore`` uses it as its actor executor: every SQLite call, including the
/// `fsync` of a commit, runs on this thread, so a slow disk blocks neither Swift's cooperative
/// thread pool nor the callers (they just await). Jobs run in the order they were enqueued.
/// The thread ends after ``shutdown()`` once the jobs already queued have run.
final class SQLiteThreadExecutor: SerialExecutor, @unchecked Sendable {
    // `jobs` and `stopping` are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var thread: pthread_t?

    /// Starts the thread, named `name` (at most 15 bytes: visible in debuggers and `top -H`).
    init(name: String) {
        let thread = Thread { [self] in
            Thread.current.name = name // on Linux only the thread itself can name itself
            self.runLoop()
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread end once the queued jobs have run. Jobs enqueued later still run first.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    /// Whether the caller runs on the executor's thread.
    var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    private func runLoop() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
