import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Checks a finished staging file before it is moved to its destination.
package enum FileValidation {
    /// The lowercase hex SHA-256 of the file at `path`, read in 1 MiB blocks.
    package static func sha256(ofFileAt path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DownloadError.fileSystem(errno: errno, "cannot read \(path) to check it") }
        defer { close(fd) }
        var hasher = SHA256()
        let size = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, size)
            if n < 0 {
                if errno == EINTR { continue }
                throw DownloadError.fileSystem(errno: errno, "cannot read \(path) to check it")
            }
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return hex(hasher.finalize())
    }

    /// Bytes (a digest) as lowercase hex.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The size of the file at `path`, or `nil` when there is none.
    static func size(ofFileAt path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_size)
    }

    /// Moves `from` to `to` atomically (same file system), replacing `to`, and flushes the directory.
    package static func moveAtomically(from: String, to: String, synchronize: Bool = true) throws {
        if rename(from, to) != 0 {
            throw DownloadError.fileSystem(errno: errno, "cannot move \(from) to \(to)")
        }
        guard synchronize else { return }
        let dir = (to as NSString).deletingLastPathComponent
        let dfd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }

    /// Removes the file at `path` if it exists.
    static func remove(path: String) {
        unlink(path)
    }

    /// Whether `path` is a directory (one `stat`).
    static func isDirectory(path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates the directory at `path` and its parents.
    static func createDirectory(path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(.fileSystem, "cannot create the directory \(path): \(error.localizedDescription)")
        }
    }
}
