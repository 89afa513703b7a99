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
    ///
    /// Every HTTP answer with `Last-Modified` comes here (``TransferHead/modificationDate``): a
    /// well-formed IMF-fixdate is read by hand, and only anything else goes to a `DateFormatter`
    /// (ICU: making one and parsing took more CPU than the rest of a 64 KiB download).
    package static func date(httpDate text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return imfFixdate(trimmed) ?? formatter().date(from: trimmed)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, exactly; `nil` for anything else (also a day the month
    /// does not have), which ``date(httpDate:)`` leaves to the formatter.
    package static func imfFixdate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"),
              [4, 7, 11, 16, 25].allSatisfy({ bytes[$0] == UInt8(ascii: " ") }),
              bytes[26...].elementsEqual("GMT".utf8),
              days.contains(where: { $0.elementsEqual(bytes[0..<3]) }),
              let month = months.firstIndex(where: { $0.elementsEqual(bytes[8..<11]) }),
              let day = number(bytes[5..<7]), let year = number(bytes[12..<16]), let hour = number(bytes[17..<19]),
              let minute = number(bytes[20..<22]), let second = number(bytes[23..<25]),
              year >= 1900, (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        let seconds = timegm(&fields)
        guard fields.tm_mday == Int32(day), fields.tm_mon == Int32(month) else { return nil }  // 31 Feb was normalised
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }

    /// The decimal digits of `bytes` as a number; `nil` when one is not a digit.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
