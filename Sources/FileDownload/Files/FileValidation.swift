import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Checks a finished staging file before it is moved to its destination.
package enum FileValidation {
    /// The lowercase hex SHA-256 of the file at `path`, read in 1 MiB blocks. A symbolic link at
    /// `path` is not followed: it fails with ``DownloadError/Code/fileSystem``.
    package static func sha256(ofFileAt path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw DownloadError.fileSystem(errno: errno, "cannot read \(path) to check it") }
        defer { close(fd) }
        return try sha256(of: fd, name: path)
    }

    /// The lowercase hex SHA-256 of the whole file open at `fd` (read with `pread(2)` from offset
    /// 0 in 1 MiB blocks, so the descriptor's position does not matter); `name` is for messages.
    package static func sha256(of fd: Int32, name: String) throws -> String {
        var hasher = SHA256()
        let size = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let n = pread(fd, buffer.baseAddress, size, offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw DownloadError.fileSystem(errno: errno, "cannot read \(name) to check it")
            }
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += off_t(n)
        }
        return hex(hasher.finalize())
    }

    /// Bytes (a digest) as lowercase hex.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The size of the entry at `path` (`lstat`: a symbolic link is not followed), or `nil` when
    /// there is none.
    static func size(ofFileAt path: String) -> Int64? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return Int64(st.st_size)
    }

    /// Moves `from` to `to` atomically (same file system), replacing `to`, and flushes the directory.
    package static func moveAtomically(from: String, to: String, synchronize: Bool = true) throws {
        if rename(from, to) != 0 {
            throw DownloadError.fileSystem(errno: errno, "cannot move \(from) to \(to)")
        }
        if synchronize { synchronizeDirectory(of: to) }
    }

    /// Moves `from` to `to` atomically (same file system) only when nothing is at `to`, and
    /// flushes the directory; returns `false`, moving nothing, when something is there (a file,
    /// a directory, a link), however recently it appeared: the check and the move are one step
    /// (`renameat2` with `RENAME_NOREPLACE`; on a file system without it, `link` then `unlink`).
    package static func moveWithoutReplacing(from: String, to: String, synchronize: Bool = true) throws -> Bool {
        var moved = false
        if let renameat2 = renameat2Function {
            if renameat2(AT_FDCWD, from, AT_FDCWD, to, renameNoReplace) == 0 {
                moved = true
            } else if errno == EEXIST {
                return false
            } else if errno != EINVAL && errno != ENOSYS {
                throw DownloadError.fileSystem(errno: errno, "cannot move \(from) to \(to)")
            }
        }
        if !moved {
            if link(from, to) != 0 {
                if errno == EEXIST { return false }
                throw DownloadError.fileSystem(errno: errno, "cannot move \(from) to \(to)")
            }
            if unlink(from) != 0 {
                throw DownloadError.fileSystem(errno: errno, "cannot remove \(from) after linking it to \(to)")
            }
        }
        if synchronize { synchronizeDirectory(of: to) }
        return true
    }

    /// `RENAME_NOREPLACE` of `<linux/fs.h>`.
    private static let renameNoReplace: UInt32 = 1

    /// glibc's `renameat2` (2.28 and later), looked up at run time: Swift's Glibc module does not
    /// declare it. `nil` when the C library has none.
    private static let renameat2Function: (@convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32)? = {
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32).self)
    }()

    /// Flushes the directory that holds `path` (its new entry survives a power loss). Best effort
    /// for these moves (the command line's state files): a refusal is left as it is.
    private static func synchronizeDirectory(of path: String) {
        try? synchronizeDirectory(at: (path as NSString).deletingLastPathComponent)
    }

    /// Flushes the directory at `directory` (`fsync(2)`; empty: the current directory). Throws
    /// a `.fileSystem` ``DownloadError`` with the `errno` when the directory cannot be opened or
    /// the flush fails (EIO; EINVAL on a file system that cannot flush directories): the caller
    /// decides what a refusal means.
    static func synchronizeDirectory(at directory: String) throws {
        let path = directory.isEmpty ? "." : directory
        let dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else {
            throw DownloadError.fileSystem(errno: errno, "cannot open the directory \(path) to flush it")
        }
        defer { close(dfd) }
        if fsync(dfd) != 0 {
            throw DownloadError.fileSystem(errno: errno, "cannot flush the directory \(path)")
        }
    }

    /// Whether anything (a file, a directory, a dangling symbolic link) is at `path` (one `lstat`).
    static func exists(_ path: String) -> Bool {
        size(ofFileAt: path) != nil
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
