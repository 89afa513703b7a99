package import Foundation
import Synchronization

/// Makes finished downloads durable in groups: the files that finish close together are flushed
/// together, then moved into place, then each directory they went to is flushed once.
///
/// A file and its directory flushed one by one cost two journal commits a file on ext4; here a
/// group of any size costs about two. The flusher takes whatever is pending as soon as it is free
/// (no window, no timer): a lone download goes through at once, at the cost it had before groups
/// existed, and the downloads that finish while a group is flushed form the next group.
///
/// Each device (the `st_dev` of the finished file, ``CompletionFileSystem/device(of:)``) has its
/// own queue: its groups run one at a time, on ``BlockingFileWork``'s threads, while the groups
/// of other devices run beside them. A device that hangs (an NFS server gone, a dying USB disk)
/// holds the completions of its own files only, in the group that hangs and in its queue; the
/// downloads of other devices complete meanwhile. What it holds besides: the threads its group
/// waits on (one, plus one for each further file flushed side by side), taken from
/// ``BlockingFileWork``'s pool.
///
/// In a group, in this order:
/// 1. every file's bytes are handed to the kernel's writeback (``CompletionFileSystem/startWriteback(of:)``,
///    when the group has more than one), then all are flushed side by side, each on a thread
///    (``CompletionFileSystem/flushData(of:)``);
///    a file whose flush fails is not moved and only its request fails;
/// 2. each move runs (the caller's closure: its checks, then ``CompletionFileSystem/move(from:to:replacing:)``);
///    a move that throws fails only its request;
/// 3. each distinct directory a file was moved into is flushed once (``CompletionFileSystem/flushDirectory(at:)``);
///    a directory flush that fails (EIO; EINVAL on a file system that cannot flush directories)
///    fails no request (its files are in place, whole): each request moved there gets the error
///    back beside its destination (``Placed``), for its caller to log;
/// 4. only then does any request of the group return, so a caller that announces completion after
///    it returns never announces a file that is not on disk.
///
/// A request may also be a flush alone (``flush(_:)``, for a caller that asks someone between the
/// flush and the move) or a move alone (``move(_:)``, its second half).
package final class CompletionFlusher: Sendable {
    /// The process-wide flusher every downloader uses unless its configuration names another
    /// (``DownloaderConfiguration/completionFlusher``): one queue per device for every downloader's completions.
    package static let shared = CompletionFlusher(fileSystem: SystemCompletionFileSystem())

    /// Where a request's file went, and the error of its directory's flush when that failed (the
    /// file is in place, whole, but its entry may not survive a power loss).
    package typealias Placed = (url: URL, directoryFlushError: (any Error)?)

    /// The calls the flusher makes (and the move closures are given).
    package let fileSystem: any CompletionFileSystem

    private struct Job {
        /// The device that holds the file: the queue the job waits in.
        let device: UInt64
        /// The file to flush, or `nil` for a move alone.
        let sink: TransferSink?
        /// The move (returns where the file went), or `nil` for a flush alone.
        let move: (@Sendable (any CompletionFileSystem) throws -> URL)?
        let continuation: CheckedContinuation<Placed?, any Error>
    }

    /// One device's queue: what waits for its next group, and whether a thread drains it.
    private struct Queue {
        var pending: [Job] = []
        var draining = false
    }

    private struct State {
        /// By device; a queue is dropped when its drain finds it empty.
        var queues: [UInt64: Queue] = [:]
        var paused = false
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        var pendingCount: Int { queues.values.reduce(0) { $0 + $1.pending.count } }
    }

    /// The queue of the files whose device cannot be read.
    private static let unknownDevice = UInt64.max

    private let state = Mutex(State())
    private let work: BlockingFileWork

    package init(fileSystem: any CompletionFileSystem) {
        self.fileSystem = fileSystem
        self.work = .shared
    }

    /// Flushes `sink`'s file, moves it with `move` (which runs on the flusher's thread, after the
    /// flush, and returns where the file went), flushes that directory; returns once all three
    /// are done, with `move`'s answer and the directory flush's error, if it failed. Throws the
    /// flush's or the move's error, in which case the directory is not flushed for this file (a
    /// failed flush: `move` is not called).
    package func complete(_ sink: TransferSink,
                          move: @escaping @Sendable (any CompletionFileSystem) throws -> URL) async throws -> Placed {
        guard let placed = try await enqueue(device: device(of: sink), sink: sink, move: move) else {
            throw DownloadError(.invalidState, "the flusher returned no destination for \(sink.path)")
        }
        return placed
    }

    /// Flushes `sink`'s file (in the next group) and returns when it is on disk.
    package func flush(_ sink: TransferSink) async throws {
        _ = try await enqueue(device: device(of: sink), sink: sink, move: nil)
    }

    /// Moves `sink`'s file, already flushed, with `move` (in the next group of its device),
    /// flushes the directory it went to, and returns `move`'s answer with the directory flush's
    /// error, if it failed.
    package func move(_ sink: TransferSink,
                      _ move: @escaping @Sendable (any CompletionFileSystem) throws -> URL) async throws -> Placed {
        guard let placed = try await enqueue(device: device(of: sink), sink: nil, move: move) else {
            throw DownloadError(.invalidState, "the flusher returned no destination")
        }
        return placed
    }

    /// Holds every request from now on in the queue (a group in progress finishes), until
    /// ``resume()``: lets a test gather a group.
    package func pause() {
        state.withLock { $0.paused = true }
    }

    /// Lets the queues go again after ``pause()``: what is pending forms each device's next group.
    package func resume() {
        let start = state.withLock { s -> [UInt64] in
            s.paused = false
            var start: [UInt64] = []
            for (device, queue) in s.queues where !queue.draining && !queue.pending.isEmpty {
                s.queues[device]?.draining = true
                start.append(device)
            }
            return start
        }
        for device in start { work.submit { [self] in drain(device) } }
    }

    /// Returns once at least `count` requests wait in the queues, all devices together (see ``pause()``).
    package func waitUntilPending(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Bool in
                if s.pendingCount >= count { return true }
                s.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The queue `sink`'s file waits in.
    private func device(of sink: TransferSink) -> UInt64 {
        fileSystem.device(of: sink) ?? Self.unknownDevice
    }

    private func enqueue(device: UInt64, sink: TransferSink?,
                         move: (@Sendable (any CompletionFileSystem) throws -> URL)?) async throws -> Placed? {
        try await withCheckedThrowingContinuation { continuation in
            let (start, ready) = state.withLock { s -> (Bool, [CheckedContinuation<Void, Never>]) in
                s.queues[device, default: Queue()].pending.append(Job(device: device, sink: sink, move: move,
                                                                      continuation: continuation))
                var ready: [CheckedContinuation<Void, Never>] = []
                if !s.waiters.isEmpty {
                    let pending = s.pendingCount
                    s.waiters.removeAll { waiter in
                        guard waiter.count <= pending else { return false }
                        ready.append(waiter.continuation)
                        return true
                    }
                }
                guard s.queues[device]?.draining == false, !s.paused else { return (false, ready) }
                s.queues[device]?.draining = true
                return (true, ready)
            }
            for waiter in ready { waiter.resume() }
            if start { work.submit { [self] in drain(device) } }
        }
    }

    /// Takes what is pending on `device`, group after group, until nothing is (or the flusher is
    /// paused).
    private func drain(_ device: UInt64) {
        while true {
            let group = state.withLock { s -> [Job] in
                guard !s.paused, let queue = s.queues[device], !queue.pending.isEmpty else {
                    if s.queues[device]?.pending.isEmpty ?? true {
                        s.queues[device] = nil
                    } else {
                        s.queues[device]?.draining = false
                    }
                    return []
                }
                s.queues[device]?.pending.removeAll(keepingCapacity: true)
                return queue.pending
            }
            if group.isEmpty { return }
            run(group)
        }
    }

    /// One group: flushes, then moves, then one flush per directory, then the answers.
    private func run(_ group: [Job]) {
        var results = [Result<Placed?, any Error>](repeating: .success(nil), count: group.count)
        let flushing = group.indices.filter { group[$0].sink != nil }
        for (i, error) in flushAll(flushing.map { group[$0].sink! }) { results[flushing[i]] = .failure(error) }
        var directories: [String] = [], seen = Set<String>()
        for i in group.indices {
            guard let move = group[i].move, case .success = results[i] else { continue }
            do {
                let url = try move(fileSystem)
                results[i] = .success((url, nil))
                let directory = url.deletingLastPathComponent().path
                if seen.insert(directory).inserted { directories.append(directory) }
            } catch {
                results[i] = .failure(error)
            }
        }
        var refused: [String: any Error] = [:]
        for directory in directories {
            do { try fileSystem.flushDirectory(at: directory) } catch { refused[directory] = error }
        }
        if !refused.isEmpty {
            for i in results.indices {
                guard case .success(let placed?) = results[i],
                      let error = refused[placed.url.deletingLastPathComponent().path] else { continue }
                results[i] = .success((placed.url, error))
            }
        }
        for (job, result) in zip(group, results) { job.continuation.resume(with: result) }
    }

    /// Flushes `sinks` and returns the errors by index. Several: all are handed to the writeback
    /// first, then flushed side by side, one `fdatasync` per thread: one after the other, each
    /// would wait for its own device cache flush (ext4 sends one per `fdatasync` even when the
    /// journal commit of the first already holds the others' metadata), while the block layer
    /// merges flushes that wait together.
    ///
    /// This thread flushes too, taking the next file as the helpers do, and waits only for files
    /// a helper took: a helper that has not started when the files run out takes none, so a busy
    /// pool (every thread draining a device) never leaves this thread waiting for one that cannot
    /// start. At most ``maxHelpers`` helpers a group, so one hung device holds few threads.
    private func flushAll(_ sinks: [TransferSink]) -> [(Int, any Error)] {
        guard sinks.count > 1 else {
            guard let sink = sinks.first else { return [] }
            do { try fileSystem.flushData(of: sink) } catch { return [(0, error)] }
            return []
        }
        for sink in sinks { fileSystem.startWriteback(of: sink) }
        let shared = SharedFlushes(count: sinks.count), fileSystem = self.fileSystem
        let flushTaken = { @Sendable in
            while let i = shared.take() {
                var failure: (any Error)?
                do { try fileSystem.flushData(of: sinks[i]) } catch { failure = error }
                shared.finish(i, failure)
            }
        }
        for _ in 0..<min(sinks.count - 1, Self.maxHelpers) { work.submit(flushTaken) }
        flushTaken()
        return shared.waitForAll()
    }

    /// The most threads that help one group's drain with its flushes.
    static let maxHelpers = 7

    /// A group's flushes shared between its drain thread and helpers: the next file to take, how
    /// many are done, and the failures.
    private final class SharedFlushes: @unchecked Sendable {
        private let condition = NSCondition()
        private let count: Int
        private var next = 0, finished = 0
        private var failures: [(Int, any Error)] = []

        init(count: Int) { self.count = count }

        /// The next file to flush; `nil` once every file is taken.
        func take() -> Int? {
            condition.lock(); defer { condition.unlock() }
            guard next < count else { return nil }
            next += 1
            return next - 1
        }

        func finish(_ index: Int, _ failure: (any Error)?) {
            condition.lock(); defer { condition.unlock() }
            if let failure { failures.append((index, failure)) }
            finished += 1
            condition.broadcast()
        }

        /// Waits until every file taken is flushed (all are taken when the caller asks) and
        /// returns the failures.
        func waitForAll() -> [(Int, any Error)] {
            condition.lock(); defer { condition.unlock() }
            while finished < count { condition.wait() }
            return failures
        }
    }
}
