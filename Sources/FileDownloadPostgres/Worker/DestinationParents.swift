import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The directories between a worker's directory and a claimed destination (`a/b/file` in
/// `DIR`: `DIR/a` and `DIR/a/b`), made or checked before the download starts, never through a
/// symbolic link.
///
/// Anyone who may insert rows into the queue chooses the destination, and anyone who may write
/// into `DIR` could plant `DIR/a` as a link to `/etc`: following it would put the worker's files
/// outside its directory. Each component is opened relative to the one before with
/// `O_NOFOLLOW | O_DIRECTORY` and made with `mkdirat` (mode 0755 before the umask) when missing;
/// a component that is a symbolic link, or anything but a directory, refuses the destination.
/// `DIR` itself is the operator's choice and may be a link.
///
/// The check runs when the download starts. It narrows the window without closing it: the
/// staging file and the final rename go by path, and `O_NOFOLLOW` covers only the last
/// component, so a directory swapped for a link after this check is followed.
enum DestinationParents {
    /// Makes or checks the directories of `destination` (relative, already checked by
    /// `QueuedDownload.problem(destination:)`) inside `directory`.
    ///
    /// - Throws: `DownloadError` `.invalidDestination` when a component is a symbolic link or not
    ///   a directory (nothing is made past it); `.fileSystem` when a directory cannot be made or
    ///   opened for another reason.
    static func prepare(_ destination: String, in directory: URL) throws {
        let parents = destination.split(separator: "/").dropLast()
        guard !parents.isEmpty else { return }
        var fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno
            throw DownloadError(.fileSystem, "cannot open the worker's directory \(directory.path): \(String(cString: strerror(reason)))")
        }
        defer { close(fd) }
        var walked = directory.path
        for component in parents {
            let name = String(component)
            walked += "/" + name
            var next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT {
                // Made here, or by another worker at the same moment: open what is there now.
                if mkdirat(fd, name, 0o755) != 0 {
                    let reason = errno
                    if reason != EEXIST {
                        throw DownloadError(.fileSystem, "cannot create the directory \(walked): \(String(cString: strerror(reason)))")
                    }
                }
                next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard next >= 0 else {
                let reason = errno
                if reason == ELOOP || reason == ENOTDIR {
                    throw DownloadError(.invalidDestination,
                                        "the destination \(destination) passes through \(walked), which is a symbolic link or not a directory; nothing was written")
                }
                throw DownloadError(.fileSystem, "cannot open the directory \(walked): \(String(cString: strerror(reason)))")
            }
            close(fd)
            fd = next
        }
    }
}
