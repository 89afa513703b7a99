import Dispatch

/// A task executor that runs its jobs one at a time, in the order they were enqueued.
///
/// Tasks that prefer it resume in exactly the order their continuations were resumed, which lets
/// a test observe the order in which ``ManualClock`` resumes its sleepers.
final class SerialTaskExecutor: TaskExecutor, @unchecked Sendable {
    // A serial DispatchQueue: FIFO, one job at a time; immutable after init.
    private let queue = DispatchQueue(label: "SerialTaskExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
