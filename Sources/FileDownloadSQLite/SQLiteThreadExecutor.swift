import FileDownload
import Foundation

/// A serial executor that runs every job on one dedicated thread.
///
/// ``SQLiteDownloadStore`` uses it as its actor executor: every SQLite call, including the
/// `fsync` of a commit, runs on this thread, so a slow disk blocks neither Swift's cooperative
/// thread pool nor the callers (they just await). Jobs run in the order they were enqueued.
/// The thread ends after ``shutdown()`` once the jobs already queued have run.
final class SQLiteThreadExecutor: SerialExecutor {
    private let thread: SerialThread

    /// Starts the thread, named `name` (at most 15 bytes: visible in debuggers and `top -H`).
    init(name: String) {
        thread = SerialThread(name: name)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The thread ends only when the store is released, so nothing should come after; were a
        // job to come, it runs on a thread of its own rather than being lost with its awaiter.
        guard thread.submit({ [self] in job.runSynchronously(on: asUnownedSerialExecutor()) }) else {
            Thread.detachNewThread { [self] in job.runSynchronously(on: asUnownedSerialExecutor()) }
            return
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread end once the queued jobs have run. Jobs enqueued later still run first.
    func shutdown() {
        thread.stop()
    }

    /// Whether the caller runs on the executor's thread.
    var isCurrent: Bool { thread.isCurrent }
}
