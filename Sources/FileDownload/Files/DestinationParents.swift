public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directories between a download directory and a destination (`a/b/file` in `DIR`:
/// `DIR/a` and `DIR/a/b`), made or checked before anything is written there, never through a
/// symbolic link.
///
/// Whoever chooses a destination (a queue's row, an API request) and whoever may write into
/// `DIR` could plant `DIR/a` as a link to `/etc` between the moment the download is added and
/// the moment it writes: following it would put the file outside `DIR`. Each component is
/// opened relative to the one before with `O_NOFOLLOW | O_DIRECTORY` and made with `mkdirat`
/// (mode 0755 before the umask) when missing; a component that is a symbolic link, or anything
/// but a directory, refuses the destination. `DIR` itself is the operator's choice and may be a
/// link.
///
/// `Downloader` runs the check as each attempt starts and again just before the finished file is
/// moved into place, for every destination below its `DownloaderConfiguration.downloadsDirectory`.
/// Links that are already there when the application adds a download are followed once, when
/// `DownloaderConfiguration.followsExistingLinks` is on (the default; the agent and the fleet
/// worker, whose names come from their clients, turn it off): the download is stored with its
/// real path.
/// It narrows the window without closing it: the staging file and the rename go by path, so a
/// directory swapped for a link between the check and the rename is followed.
public enum DestinationParents {
    /// Makes or checks the directories of `destination`, a relative path (`name` or
    /// `sub/dir/name`, no empty, `.` or `..` component), inside `directory`.
    ///
    /// - Throws: `DownloadError` ``DownloadError/Code/invalidDestination`` when a component is a
    ///   symbolic link or not a directory (nothing is made past it); ``DownloadError/Code/fileSystem``
    ///   when `directory` or a component cannot be opened or made for another reason.
    public static func prepare(_ destination: String, in directory: URL) throws {
        let parents = destination.split(separator: "/").dropLast().map(String.init)
        try walk(parents, from: directory.path, naming: destination)
    }

    /// Makes or checks `directory` (the directory of a download's staging file): below `base`
    /// component by component as ``prepare(_:in:)`` does; anywhere else (or `base` itself, or an
    /// empty `base`) it is only made, parents included, when missing.
    ///
    /// Both paths are absolute and standardized (as `DownloadPaths` checks every download's
    /// paths). Without `making` (the check before the move) nothing is made or asked outside
    /// `base`, and below it the components are checked as before.
    package static func prepare(directory: String, below base: String, making: Bool = true) throws {
        let base = trimmed(base)
        guard !base.isEmpty, let below = path(of: directory, below: base) else {
            if making, !FileValidation.isDirectory(path: directory) { try FileValidation.createDirectory(path: directory) }
            return
        }
        if making, !FileValidation.isDirectory(path: base) { try FileValidation.createDirectory(path: base) }
        let parents = below.split(separator: "/").map(String.init)
        try walk(parents, from: base, naming: directory)
    }

    /// `destination` (an absolute, standardized file path) with the symbolic links that exist now
    /// in its directories below `base` resolved (`realpath(3)` of the deepest directory that
    /// exists, the missing ones appended); `nil` when none of them is a link, or `destination` is
    /// not below `base`, or is directly in it.
    ///
    /// `Downloader.add` calls it for a destination the application chose when
    /// `DownloaderConfiguration.followsExistingLinks` is on: a link that is there when the download
    /// is added is the application's own (`~/Downloads` on another disk), and the download is
    /// stored with its real path, so that the checks of ``prepare(directory:below:making:)`` at
    /// each attempt refuse only a link put in its place later. When the real path lies outside
    /// `base` (`~/Downloads` on another disk), the download is what it would be had the
    /// application given that path: a destination outside the downloads directory, whose
    /// directories are made and not checked for links.
    package static func resolvingLinks(in destination: String, below base: String) -> String? {
        let base = trimmed(base)
        guard !base.isEmpty, let below = path(of: destination, below: base),
              below.utf8.contains(UInt8(ascii: "/")),  // most: a file right in base
              !destination.utf8.contains(0) else { return nil }  // C calls would see a shorter path
        let parents = below.split(separator: "/").dropLast()  // not empty: `below` holds a "/"
        var walked = base == "/" ? "" : base
        var existing = walked, sawLink = false
        for name in parents {
            walked += "/" + name
            var st = stat()
            guard lstat(walked, &st) == 0 else { break }
            existing = walked
            if (st.st_mode & S_IFMT) == S_IFLNK { sawLink = true }
        }
        guard sawLink, let real = realpath(existing, nil) else { return nil }
        defer { free(real) }
        // A real path that is not UTF-8 is left alone (the checks refuse the link then).
        guard let resolved = String(validatingCString: real) else { return nil }
        let utf8 = destination.utf8
        let rest = destination[utf8.index(utf8.startIndex, offsetBy: existing.utf8.count)...]  // bytes, not characters
        return resolved == "/" ? String(rest) : resolved + rest
    }

    /// `base` without a trailing `/` (`/` itself kept).
    private static func trimmed(_ base: String) -> String {
        base.utf8.count > 1 && base.utf8.last == UInt8(ascii: "/") ? String(base.dropLast()) : base
    }

    /// `directory` after `base` and its `/`, when it lies below `base` (not `base` itself);
    /// `nil` otherwise. Compared byte by byte, with no string made: every attempt asks it twice.
    private static func path(of directory: String, below base: String) -> Substring? {
        let bytes = directory.utf8
        guard bytes.starts(with: base.utf8) else { return nil }
        var start = bytes.index(bytes.startIndex, offsetBy: base.utf8.count)
        if base != "/" {  // "/" ends with its separator
            guard start != bytes.endIndex, bytes[start] == UInt8(ascii: "/") else { return nil }
            start = bytes.index(after: start)
        }
        guard start != bytes.endIndex else { return nil }
        return directory[start...]
    }

    /// Opens `parents` one below the other from `root`, making the missing ones.
    private static func walk(_ parents: [String], from root: String, naming destination: String) throws {
        guard !parents.isEmpty else { return }
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno
            throw DownloadError(.fileSystem, "cannot open the download directory \(root): \(String(cString: strerror(reason)))")
        }
        defer { close(fd) }
        var walked = root == "/" ? "" : root
        for name in parents {
            walked += "/" + name
            var next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT {
                // Made here, or by another process at the same moment: open what is there now.
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
