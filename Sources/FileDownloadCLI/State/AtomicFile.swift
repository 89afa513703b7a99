public import Foundation
import FileDownload
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces files so that a crash leaves the old content or the new, never a mix or zeros.
public enum AtomicFile {
    /// Writes `data` to `path`: a temporary file in the same directory, `fsync`, `rename` over
    /// `path`, then `fsync` of the directory.
    ///
    /// - Throws: ``FileDownload/DownloadError`` (code `store`, or `diskFull`) naming the path; the
    ///   old file is then untouched.
    public static func write(_ data: Data, to path: String) throws {
        let temp = path + ".tmp-\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw storeError(errno, "cannot create \(temp)") }
        var ok = true
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    ok = false
                    return
                }
                offset += n
            }
        }
        let writeErrno = errno
        if !ok || fsync(fd) != 0 {
            let e = ok ? errno : writeErrno
            close(fd)
            unlink(temp)
            throw storeError(e, "cannot write \(temp)")
        }
        close(fd)
        guard rename(temp, path) == 0 else {
            let e = errno
            unlink(temp)
            throw storeError(e, "cannot rename \(temp) to \(path)")
        }
        let dir = open((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent,
                       O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }

    private static func storeError(_ code: Int32, _ message: String) -> DownloadError {
        let error = DownloadError.fileSystem(errno: code, message)
        return error.code == .fileSystem ? DownloadError(.store, error.message) : error
    }
}
