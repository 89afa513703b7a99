package import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The remote file's modification time: read from a head, written as HTTP dates, and set on a
/// finished file (``DownloadOptions/keepsRemoteTime``).
package enum RemoteTime {
    /// The modification time `head` reports: ``TransferHead/modificationDate`` (HTTP
    /// `Last-Modified`), else the time in its validator (a `Last-Modified` date, or the mtime of
    /// ``Validator/Kind/sizeAndModificationTime``, FTP `MDTM` and SFTP); `nil` when it has none.
    package static func date(of head: TransferHead) -> Date? {
        if let date = head.modificationDate { return date }
        guard let validator = head.validator else { return nil }
        switch validator.kind {
        case .lastModified:
            return date(httpDate: validator.value)
        case .sizeAndModificationTime:
            return validator.value.split(separator: ":").last.flatMap { Int64($0) }
                .map { Date(timeIntervalSince1970: TimeInterval($0)) }
        default:
            return nil
        }
    }

    /// Sets the modification (and access) time of the file at `path` to `date`, without following
    /// a symbolic link there (`utimensat` with `AT_SYMLINK_NOFOLLOW`). Whole seconds: the
    /// resolution of HTTP dates, `MDTM` and SFTP's mtime.
    ///
    /// - Throws: ``DownloadError/Code/fileSystem`` when the time cannot be set.
    package static func set(_ date: Date, onFileAt path: String) throws {
        let seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw DownloadError.fileSystem(errno: errno, "cannot set the server's modification time on \(path)")
        }
    }

    /// With ``DownloadOptions/keepsRemoteTime``, sets the time `head` reports on the staging file
    /// at `path` before it is moved into place; does nothing without the option or a time.
    package static func keep(_ head: TransferHead, options: DownloadOptions, onFileAt path: String) throws {
        guard options.keepsRemoteTime, let date = date(of: head) else { return }
        try set(date, onFileAt: path)
    }

    /// The modification time of the regular file at `path` (not following a link), in whole
    /// seconds; `nil` when there is none.
    package static func modificationDate(ofFileAt path: String) -> Date? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(st.st_mtim.tv_sec))
    }

    /// `date` as an HTTP date (IMF-fixdate, RFC 9110: `Sun, 06 Nov 1994 08:49:37 GMT`).
    package static func httpDate(_ date: Date) -> String {
        formatter().string(from: date)
    }

    /// An HTTP date (IMF-fixdate) as a date; `nil` when `text` is not one.
    package static func date(httpDate text: String) -> Date? {
        formatter().date(from: text.trimmingCharacters(in: .whitespaces))
    }

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
