package import Foundation
import Synchronization

/// Makes finished downloads durable in groups: the files that finish close together are flushed
/// together, then moved into place, then each directory they went to is flushed once.
///
/// A file and its directory flushed one by one cost two journal commits a file on ext4; here a
/// group of any size costs about two. The flusher takes whatever is pending as soon as it is free
/// (no window, no timer): a lone download goes through at once, at the cost it had before groups
/// existed, and the downloads that finish while a group is flushed form the next group. Its work
/// runs on ``BlockingFileWork``'s threads, one group at a time.
///
/// In a group, in this order:
/// 1. every file's bytes are handed to the kernel's writeback (``CompletionFileSystem/startWriteback(of:)``,
///    when the group has more than one), then all are flushed side by side, each on a thread
///    (``CompletionFileSystem/flushData(of:)``);
///    a file whose flush fails is not moved and only its request fails;
/// 2. each move runs (the caller's closure: its checks, then ``CompletionFileSystem/move(from:to:replacing:)``);
///    a move that throws fails only its request;
/// 3. each distinct directory a file was moved into is flushed once (``CompletionFileSystem/flushDirectory(at:)``);
/// 4. only then does any request of the group return, so a caller that announces completion after
///    it returns never announces a file that is not on disk.
///
/// A request may also be a flush alone (``flush(_:)``, for a caller that asks someone between the
/// flush and the move) or a move alone (``move(_:)``, its second half).
package final class CompletionFlusher: Sendable {
    /// The process-wide flusher every downloader uses unless its configuration names another
    /// (``DownloaderConfiguration/completionFlusher``): one group for every downloader's completions.
    package static let shared = CompletionFlusher(fileSystem: SystemCompletionFileSystem())

    /// The calls the flusher makes (and the move closures are given).
    package let fileSystem: any CompletionFileSystem

    private struct Job {
        /// The file to flush, or `nil` for a move alone.
        let sink: TransferSink?
        /// The move (returns where the file went), or `nil` for a flush alone.
        let move: (@Sendable (any CompletionFileSystem) throws -> URL)?
        let continuation: CheckedContinuation<URL?, any Error>
    }

    private struct State {
        var pending: [Job] = []
        var draining = false
        var paused = false
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let work: BlockingFileWork

    package init(fileSystem: any CompletionFileSystem) {
        self.fileSystem = fileSystem
        self.work = .shared
    }

    /// Flushes `sink`'s file, moves it with `move` (which runs on the flusher's thread, after the
    /// flush, and returns where the file went), flushes that directory; returns once all three
    /// are done, with `move`'s answer. Throws the flush's or the move's error, in which case the
    /// directory is not flushed for this file (a failed flush: `move` is not called).
    package func complete(_ sink: TransferSink,
                          move: @escaping @Sendable (any CompletionFileSystem) throws -> URL) async throws -> URL {
        guard let url = try await enqueue(sink: sink, move: move) else {
            throw DownloadError(.invalidState, "the flusher returned no destination for \(sink.path)")
        }
        return url
    }

    /// Flushes `sink`'s file (in the next group) and returns when it is on disk.
    package func flush(_ sink: TransferSink) async throws {
        _ = try await enqueue(sink: sink, move: nil)
    }

    /// Moves a file already flushed with `move` (in the next group), flushes the directory it went
    /// to, and returns `move`'s answer.
    package func move(_ move: @escaping @Sendable (any CompletionFileSystem) throws -> URL) async throws -> URL {
        guard let url = try await enqueue(sink: nil, move: move) else {
            throw DownloadError(.invalidState, "the flusher returned no destination")
        }
        return url
    }

    /// Holds every request from now on in the queue (a group in progress finishes), until
    /// ``resume()``: lets a test gather a group.
    package func pause() {
        state.withLock { $0.paused = true }
    }

    /// Lets the queue go again after ``pause()``: what is pending forms the next group.
    package func resume() {
        let start = state.withLock { s -> Bool in
            s.paused = false
            guard !s.draining, !s.pending.isEmpty else { return false }
            s.draining = true
            return true
        }
        if start { work.submit { [self] in drain() } }
    }

    /// Returns once at least `count` requests wait in the queue (see ``pause()``).
    package func waitUntilPending(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Bool in
                if s.pending.count >= count { return true }
                s.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func enqueue(sink: TransferSink?,
                         move: (@Sendable (any CompletionFileSystem) throws -> URL)?) async throws -> URL? {
        try await withCheckedThrowingContinuation { continuation in
            let (start, ready) = state.withLock { s -> (Bool, [CheckedContinuation<Void, Never>]) in
                s.pending.append(Job(sink: sink, move: move, continuation: continuation))
                var ready: [CheckedContinuation<Void, Never>] = []
                s.waiters.removeAll { waiter in
                    guard waiter.count <= s.pending.count else { return false }
                    ready.append(waiter.continuation)
                    return true
                }
                guard !s.draining, !s.paused else { return (false, ready) }
                s.draining = true
                return (true, ready)
            }
            for waiter in ready { waiter.resume() }
            if start { work.submit { [self] in drain() } }
        }
    }

    /// Takes what is pending, group after group, until nothing is (or the flusher is paused).
    private func drain() {
        while true {
            let group = state.withLock { s -> [Job] in
                guard !s.paused, !s.pending.isEmpty else {
                    s.draining = false
                    return []
                }
                defer { s.pending.removeAll(keepingCapacity: true) }
                return s.pending
            }
            if group.isEmpty { return }
            run(group)
        }
    }

    /// One group: flushes, then moves, then one flush per directory, then the answers.
    private func run(_ group: [Job]) {
        var results = [Result<URL?, any Error>](repeating: .success(nil), count: group.count)
        let flushing = group.indices.filter { group[$0].sink != nil }
        for (i, error) in flushAll(flushing.map { group[$0].sink! }) { results[flushing[i]] = .failure(error) }
        var directories: [String] = [], seen = Set<String>()
        for i in group.indices {
            guard let move = group[i].move, case .success = results[i] else { continue }
            do {
                let url = try move(fileSystem)
                results[i] = .success(url)
                let directory = url.deletingLastPathComponent().path
                if seen.insert(directory).inserted { directories.append(directory) }
            } catch {
                results[i] = .failure(error)
            }
        }
        for directory in directories { fileSystem.flushDirectory(at: directory) }
        for (job, result) in zip(group, results) { job.continuation.resume(with: result) }
    }

    /// Flushes `sinks` and returns the errors by index. Several: all are handed to the writeback
    /// first, then flushed side by side, one `fdatasync` per thread: one after the other, each
    /// would wait for its own device cache flush (ext4 sends one per `fdatasync` even when the
    /// journal commit of the first already holds the others' metadata), while the block layer
    /// merges flushes that wait together.
    private func flushAll(_ sinks: [TransferSink]) -> [(Int, any Error)] {
        guard sinks.count > 1 else {
            guard let sink = sinks.first else { return [] }
            do { try fileSystem.flushData(of: sink) } catch { return [(0, error)] }
            return []
        }
        for sink in sinks { fileSystem.startWriteback(of: sink) }
        let failures = Failures(), done = DispatchGroup(), fileSystem = self.fileSystem
        for (i, sink) in sinks.enumerated().dropFirst() {
            done.enter()
            work.submit {
                do { try fileSystem.flushData(of: sink) } catch { failures.add(i, error) }
                done.leave()
            }
        }
        do { try fileSystem.flushData(of: sinks[0]) } catch { failures.add(0, error) }
        done.wait()
        return failures.all
    }

    /// The flushes of a group that failed, collected from the threads that made them.
    private final class Failures: Sendable {
        private let errors = Mutex<[(Int, any Error)]>([])
        func add(_ index: Int, _ error: any Error) { errors.withLock { $0.append((index, error)) } }
        var all: [(Int, any Error)] { errors.withLock { $0 } }
    }
}
