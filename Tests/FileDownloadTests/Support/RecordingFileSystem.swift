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

    private let real = SystemCompletionFileSystem()
    private let state = Mutex<(log: [Call], failing: Set<String>)>(([], []))

    /// Everything recorded, in order.
    var log: [Call] { state.withLock { $0.log } }

    /// The kinds of the calls recorded, in order.
    var kinds: [String] { log.map(\.kind) }

    /// From now on, the data flush of the file at `path` (a staging path) throws EIO.
    func failFlush(of path: String) { state.withLock { _ = $0.failing.insert(path) } }

    func note(_ call: Call) { state.withLock { $0.log.append(call) } }

    func startWriteback(of sink: TransferSink) {
        real.startWriteback(of: sink)
        note(.writeback(sink.path))
    }

    func flushData(of sink: TransferSink) throws {
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

    func flushDirectory(at path: String) {
        real.flushDirectory(at: path)
        note(.directory(path))
    }
}
