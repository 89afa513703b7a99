#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the library opens, truncates and deletes the files it owns (staging files): never
/// through a symbolic link or a hard link someone else planted at the name.
///
/// - A fresh start removes whatever entry has the name (`unlink`, which never follows a link and
///   never removes a directory) and creates a new file with `O_CREAT | O_EXCL | O_NOFOLLOW`: if
///   anything appears at the name in between, the open fails instead of writing through it.
/// - Continuing reopens with `O_NOFOLLOW` (a symbolic link fails with `ELOOP`) and checks the open
///   file with `fstat`: a regular file, one link, owned by the effective user. An entry that fails
///   the check is never written through: it is removed and a new, empty file is created in its
///   place (the download starts from zero). docs/security.md, "Files", gives the reasons.
package enum StagingFile {
    /// An open staging file and the bytes of it that are kept.
    package struct Opened {
        /// Open for reading and writing, close-on-exec; the caller closes it.
        package var descriptor: Int32
        /// `offset` when the existing file could be continued, else 0 (a new, empty file).
        package var keptBytes: Int64
    }

    /// Opens the staging file at `path` to write from `offset` on.
    ///
    /// In order: with `offset` 0, the entry at `path` (if any) is removed and a new file is
    /// created exclusively. Otherwise the file is reopened without following a link and checked;
    /// when it is missing, or fails the check (it is removed then), a new file is created as for
    /// `offset` 0. A file that passes is returned as it is, whatever its length: the caller
    /// compares that length with `offset` and cuts it.
    ///
    /// - Returns: the descriptor, and `offset` when the existing file is kept or 0 when a new file
    ///   was created.
    /// - Throws: ``DownloadError`` (``DownloadError/Code/fileSystem``) when no trustworthy file can
    ///   be opened (a directory in the way, an entry planted again between removal and creation,
    ///   no permission).
    package static func open(_ path: String, keeping offset: Int64) throws -> Opened {
        if offset > 0 {
            let fd = Glibc.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 {
                if isOwnedRegularFile(fd) { return Opened(descriptor: fd, keptBytes: offset) }
                close(fd)
            } else if errno != ELOOP && errno != ENOENT {
                throw DownloadError.fileSystem(errno: errno, "cannot open the staging file \(path)")
            }
        }
        return Opened(descriptor: try create(path), keptBytes: 0)
    }

    /// Reopens an existing staging file to inspect or cut it, or `nil` when there is none or it
    /// fails the check (a link, not a regular file, more than one link, another owner); an entry
    /// that fails is removed. Never creates a file.
    package static func reopen(_ path: String) -> Int32? {
        let fd = Glibc.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0, isOwnedRegularFile(fd) { return fd }
        let failed = fd >= 0 || errno == ELOOP
        if fd >= 0 { close(fd) }
        if failed { remove(path) }
        return nil
    }

    /// Removes the entry at `path` when it is a file or a symbolic link (the link, never what it
    /// names); a directory or anything else is left alone (`lstat`, then `unlink`).
    ///
    /// - Returns: whether an entry was removed.
    @discardableResult
    package static func remove(_ path: String) -> Bool {
        (try? removeFile(path)) ?? false
    }

    /// ``remove(_:)`` that says why it removed nothing: deletion as the library and `fdl` do it,
    /// one regular file (or a symbolic link itself), never a directory tree.
    ///
    /// - Returns: whether an entry was removed (`false`: there was none).
    /// - Throws: ``DownloadError`` (code `fileSystem`) when `path` is a directory or another kind of
    ///   file, or cannot be removed; nothing was removed then.
    @discardableResult
    package static func removeFile(_ path: String) throws -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            if errno == ENOENT { return false }
            throw DownloadError.fileSystem(errno: errno, "cannot look at \(path)")
        }
        let type = st.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFLNK else {
            throw DownloadError(.fileSystem, "\(path) is not a regular file; it was left alone")
        }
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw DownloadError.fileSystem(errno: errno, "cannot delete \(path)")
        }
        return true
    }

    /// Creates a new, empty staging file at `path`, after removing the entry there.
    private static func create(_ path: String) throws -> Int32 {
        remove(path)
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw DownloadError.fileSystem(errno: errno, "cannot create the staging file \(path) as a new file")
        }
        return fd
    }

    /// Whether the open file is a regular file with one link, owned by the effective user.
    private static func isOwnedRegularFile(_ fd: Int32) -> Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && st.st_nlink == 1 && st.st_uid == geteuid()
    }
}
