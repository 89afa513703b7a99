import FileDownload
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A ``CompletionFileSystem`` that makes the real calls and records each once it has returned,
/// in one log with what the test adds (``note(_:)``: events seen by an observer, which runs as
/// the downloader publishes them). It can fail the data flush of chosen files with EIO.
final class RecordingFileSystem: CompletionFileSystem {
    enum Call: Equatable, Sendable {
        case writeback(String)
        case flush(String)
        case move(from: String, to: String)
        case directory(String)
        /// Added by the test: a `completed` event of this id, or the delegate's last word.
        case completed(String)
        case asked(String)

        var kind: String {
            switch self {
            case .writeback: "writeback"
            case .flush: "flush"
            case .move: "move"
            case .directory: "directory"
            case .completed: "completed"
            case .asked: "asked"
            }
        }
    }

    /// A data flush held on its thread (``hold(flushOf:)``) until ``release()``: a device that hangs.
    final class Hold: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        private let state = Mutex<(reached: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        /// Called by the held flush: notes that it was reached, then blocks until released.
        fileprivate func block() {
            let waiters = state.withLock { s in
                s.reached = true
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in waiters { waiter.resume() }
            gate.wait()
        }

        /// Returns once the held flush has begun (and waits).
        func reached() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { s -> Bool in
                    if s.reached { return true }
                    s.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        /// Lets the held flush go on.
        func release() { gate.signal() }
    }

    private struct State {
        var log: [Call] = []
        var failing: Set<String> = []
        var refusedDirectories: Set<String> = []
        var devices: [String: UInt64] = [:]
        var holds: [String: Hold] = [:]
    }

    private let real = SystemCompletionFileSystem()
    private let state = Mutex(State())

    /// Everything recorded, in order.
    var log: [Call] { state.withLock { $0.log } }

    /// The kinds of the calls recorded, in order.
    var kinds: [String] { log.map(\.kind) }

    /// From now on, the data flush of the file at `path` (a staging path) throws EIO.
    func failFlush(of path: String) { state.withLock { _ = $0.failing.insert(path) } }

    /// From now on, the flush of the directory at `path` throws EINVAL (as on a file system that
    /// cannot flush directories), and is not recorded.
    func refuseDirectoryFlush(of path: String) { state.withLock { _ = $0.refusedDirectories.insert(path) } }

    /// From now on, the file at `path` (a staging path) is said to be on `device`.
    func place(_ path: String, onDevice device: UInt64) { state.withLock { $0.devices[path] = device } }

    /// The next data flush of the file at `path` (a staging path) blocks its thread until the
    /// answer's ``Hold/release()``.
    func hold(flushOf path: String) -> Hold {
        let hold = Hold()
        state.withLock { $0.holds[path] = hold }
        return hold
    }

    func note(_ call: Call) { state.withLock { $0.log.append(call) } }

    func device(of sink: TransferSink) -> UInt64? {
        state.withLock { $0.devices[sink.path] } ?? real.device(of: sink)
    }

    func startWriteback(of sink: TransferSink) {
        real.startWriteback(of: sink)
        note(.writeback(sink.path))
    }

    func flushData(of sink: TransferSink) throws {
        if let hold = state.withLock({ $0.holds.removeValue(forKey: sink.path) }) { hold.block() }
        if state.withLock({ $0.failing.contains(sink.path) }) {
            throw DownloadError.fileSystem(errno: EIO, "cannot flush the staging file \(sink.path)")
        }
        try real.flushData(of: sink)
        note(.flush(sink.path))
    }

    func move(from: String, to: String, replacing: Bool) throws -> Bool {
        let moved = try real.move(from: from, to: to, replacing: replacing)
        if moved { note(.move(from: from, to: to)) }
        return moved
    }

    func flushDirectory(at path: String) throws {
        if state.withLock({ $0.refusedDirectories.contains(path) }) {
            throw DownloadError.fileSystem(errno: EINVAL, "cannot flush the directory \(path)")
        }
        try real.flushDirectory(at: path)
        note(.directory(path))
    }
}
