import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on `DIR/.fdl-worker.lock`, held by a worker whose directory is not shared:
/// two such workers on one machine would take each other's staging files for their own (they
/// have the same node name), so the second one is refused. The lock goes with the process (also
/// when it is killed); the file stays.
final class DirectoryLock: Sendable {
    /// The lock file's name inside the directory.
    static let fileName = ".fdl-worker.lock"
    private let descriptor: Int32

    /// Creates `directory` if needed and locks it.
    ///
    /// - Throws: `DownloadError` `.invalidState` when another process holds the lock, `.fileSystem`
    ///   when the directory or the lock file cannot be made.
    init(directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(.fileSystem, "cannot create the worker's directory \(directory.path): \(error.localizedDescription)")
        }
        let path = directory.appendingPathComponent(Self.fileName).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)  // a planted link is not followed
        guard fd >= 0 else {
            throw DownloadError(.fileSystem, "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(fd)
            if busy {
                throw DownloadError(.invalidState, "another worker already uses \(directory.path) (it holds \(path)); give each worker its own directory, or --shared-dir when the directory is shared storage")
            }
            throw DownloadError(.fileSystem, "cannot lock \(path): \(reason)")
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}
