import FileDownload
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deletion as `fdl` does it: one regular file (or a symbolic link itself), never a directory tree.
enum RegularFile {
    /// Removes the file at `path` when it is a regular file or a symbolic link (the link, not what
    /// it points to); a missing file is not an error.
    ///
    /// - Returns: whether a file was removed.
    /// - Throws: ``FileDownload/DownloadError`` (code `fileSystem`) when `path` is a directory or
    ///   another kind of file, or cannot be removed; nothing was removed then.
    @discardableResult
    static func remove(_ path: String) throws -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return false }
            throw DownloadError.fileSystem(errno: errno, "cannot look at \(path)")
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFLNK else {
            throw DownloadError(.fileSystem, "\(path) is not a regular file; it was left alone")
        }
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw DownloadError.fileSystem(errno: errno, "cannot delete \(path)")
        }
        return true
    }
}
