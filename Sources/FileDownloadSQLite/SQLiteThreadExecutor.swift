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

    /// Starts the thread, named `name` (at most 15 bytes: visible in debuggers and `top -H`).
    init(name: String) {
        // On Linux the name must be set by the thread itself to reach the system thread.
        let thread = Thread { [self] in
            Thread.current.name = name
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

    private func runLoop() {
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
