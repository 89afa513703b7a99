import Foundation

/// A few dedicated threads for file-system calls that block: the groups of ``CompletionFlusher``
/// (each device's queue drained on one thread, the `fdatasync`s of a group side by side on further
/// threads), hashing a finished file.
///
/// Run on Swift's cooperative pool (one thread per core), one slow `fsync` would hold a core's
/// worth of tasks. Here the blocking calls wait on their own threads, so the flushes of a group
/// reach the file system together (the block layer merges device cache flushes that wait
/// together), the groups of different devices run beside each other, and the pool stays free for
/// transfers and events.
///
/// Threads start when work waits and no thread is idle, up to `maxThreads`, and end after
/// `idleSeconds` without work, so an idle process keeps none. Jobs start in the order they came.
final class BlockingFileWork: @unchecked Sendable {
    /// The process-wide pool every downloader uses.
    static let shared = BlockingFileWork(maxThreads: 16, idleSeconds: 5)

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var nextJob = 0
    private var threads = 0
    private var idle = 0

    private let maxThreads: Int
    private let idleSeconds: TimeInterval

    init(maxThreads: Int, idleSeconds: TimeInterval) {
        self.maxThreads = max(1, maxThreads)
        self.idleSeconds = idleSeconds
    }

    /// Runs `body` on one of the pool's threads and returns its result (or rethrows its error).
    /// The body runs to its end even when the calling task is cancelled meanwhile.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result(catching: body)) }
        }
    }

    /// Runs `job` on one of the pool's threads, without waiting for it (``CompletionFlusher``
    /// hands its groups over this way).
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let waiting = jobs.count - nextJob
        let spawn = waiting > idle && threads < maxThreads
        if spawn { threads += 1 }
        condition.signal()
        condition.unlock()
        if spawn {
            let thread = Thread { [self] in loop() }
            thread.name = "fdl file work"
            thread.start()
        }
    }

    private func loop() {
        condition.lock()
        while true {
            while nextJob == jobs.count {
                idle += 1
                let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleSeconds))
                idle -= 1
                if !signalled, nextJob == jobs.count {
                    threads -= 1
                    condition.unlock()
                    return
                }
            }
            let job = jobs[nextJob]
            nextJob += 1
            if nextJob == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                nextJob = 0
            } else if nextJob >= 64, nextJob * 2 >= jobs.count {
                jobs.removeFirst(nextJob)  // a queue that never empties must not grow forever
                nextJob = 0
            }
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
