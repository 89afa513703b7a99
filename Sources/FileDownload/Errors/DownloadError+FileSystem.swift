#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DownloadError {
    /// A local file error from an `errno`: ENOSPC → ``Code/diskFull``, EFBIG →
    /// ``Code/fileTooLarge``, anything else → ``Code/fileSystem``. None is retried automatically.
    public static func fileSystem(errno code: Int32, _ message: String) -> DownloadError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT:
            return DownloadError(.diskFull, "\(message): the disk is full (\(reason))")
        case EFBIG:
            return DownloadError(.fileTooLarge, "\(message): the file size limit was reached (\(reason))")
        default:
            return DownloadError(.fileSystem, "\(message): \(reason)")
        }
    }
}
