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
    /// - Throws: `DownloadError` (code `store`, or `diskFull`) naming the path; the
    ///   old file is then untouched.
    public static func write(_ data: Data, to path: String) throws {
        let temp = path + ".tmp-\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw storeError(.fileSystem(errno: errno, "cannot create \(temp)")) }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0, errno == EINTR { continue }
                    guard n >= 0 else { throw DownloadError.fileSystem(errno: errno, "cannot write \(temp)") }
                    offset += n
                }
            }
            guard fsync(fd) == 0 else { throw DownloadError.fileSystem(errno: errno, "cannot write \(temp)") }
            try FileValidation.moveAtomically(from: temp, to: path)  // rename, then fsync of the directory
        } catch let error as DownloadError {
            unlink(temp)
            throw storeError(error)
        }
    }

    /// File-system errors of the state file are store errors; a full disk stays `diskFull`.
    private static func storeError(_ error: DownloadError) -> DownloadError {
        error.code == .fileSystem ? DownloadError(.store, error.message) : error
    }
}
