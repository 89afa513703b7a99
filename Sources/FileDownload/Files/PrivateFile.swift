#if canImport(Glibc)
import Glibc
#endif

/// A small secret file (a password, a token) read through one descriptor: opened without
/// following a symbolic link and without blocking (a FIFO cannot hold the reader), checked with
/// `fstat(2)` on that descriptor, and read from it. What is checked is what is read: a file
/// swapped between the check and the read cannot slip in.
package enum PrivateFile {
    /// What reading the file found.
    package enum Outcome: Sendable, Equatable {
        /// Nothing is at the path.
        case missing
        /// Something other than a regular file: a symbolic link, a directory, a FIFO, a device.
        case notRegular
        /// Larger than the limit asked for.
        case tooLarge
        /// The system refused (`strerror` of the failure).
        case failed(String)
        /// The file's bytes, its owner and its permission bits (after any tightening).
        case read([UInt8], owner: UInt32, mode: UInt32)
    }

    /// Reads the regular file at `path`, at most `limit` bytes. With `tightening`, a file of this
    /// user that others may read or write is first made mode 0600 (on the same descriptor).
    package static func read(_ path: String, limit: Int = 64 << 10, tightening: Bool = false) -> Outcome {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return .missing
            case ELOOP: return .notRegular
            default: return .failed(String(cString: strerror(errno)))
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .notRegular }
        guard info.st_size <= limit else { return .tooLarge }
        var mode = info.st_mode & 0o777
        if tightening, info.st_uid == geteuid(), mode & 0o077 != 0 {
            guard fchmod(fd, 0o600) == 0 else { return .failed(String(cString: strerror(errno))) }
            mode = 0o600
        }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count <= limit {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        guard data.count <= limit else { return .tooLarge }
        return .read(data, owner: info.st_uid, mode: mode)
    }
}
