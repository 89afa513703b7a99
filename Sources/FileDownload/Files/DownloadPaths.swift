package import Foundation

/// The check every pair of paths a download writes must pass before anything is opened,
/// truncated, moved or deleted there: whatever brought them in (``Downloader/add(id:url:destination:options:)``,
/// resume data, a store record) is not trusted.
package enum DownloadPaths {
    /// The directory of `path`, a path that passed ``problem(destination:partPath:stagingSuffix:)``
    /// (absolute, standardized, not ending in `/`): everything before its last `/`, or `/` for a
    /// file in the root (empty for a bare name, as `NSString` answers). Byte work only, where
    /// `NSString`'s `deletingLastPathComponent` costs microseconds (asked for every running
    /// download as each attempt starts).
    package static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    /// Why `destination` and `partPath` cannot be a download's paths, or `nil` when they can.
    ///
    /// They can when the destination is an absolute `file:` URL whose path is standardized (no
    /// `.` or `..` component, no empty name) and holds no NUL, and the staging path is exactly
    /// the destination's path plus `stagingSuffix`.
    package static func problem(destination: URL, partPath: String, stagingSuffix: String) -> String? {
        problem(destination: destination, path: destination.path, partPath: partPath, stagingSuffix: stagingSuffix)
    }

    /// ``problem(destination:partPath:stagingSuffix:)`` for a caller that has `destination.path`
    /// at hand as `path` (`URL.path` decodes the URL at every call).
    package static func problem(destination: URL, path: String, partPath: String, stagingSuffix: String) -> String? {
        guard destination.isFileURL, path.hasPrefix("/") else {
            return "the destination \(destination) is not an absolute file path"
        }
        // Byte by byte: a path is the bytes the kernel sees (a String's `==` would take two
        // spellings of one accented letter as equal).
        if path.utf8.contains(0) || partPath.utf8.contains(0) {
            return "a path of the download holds a NUL character"
        }
        if !isStandardized(path) {
            return "the destination \(path) is not a standardized path (an empty, '.' or '..' component)"
        }
        guard partPath.utf8.elementsEqual((path + stagingSuffix).utf8) else {
            return "the staging file \(partPath) is not the destination \(path) plus '\(stagingSuffix)'"
        }
        return nil
    }

    /// Whether `path` is absolute and standardized: it starts with `/` and has no empty, `.` or
    /// `..` component (so no `//` and no `/` at its end).
    package static func isStandardized(_ path: String) -> Bool {
        guard path.utf8.first == UInt8(ascii: "/") else { return false }
        // One pass over the bytes: the length of the component so far, and whether it is only dots.
        var length = 0, onlyDots = true
        for byte in path.utf8.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if length == 0 || (onlyDots && length <= 2) { return false }
                length = 0
                onlyDots = true
            } else {
                length += 1
                onlyDots = onlyDots && byte == UInt8(ascii: ".")
            }
        }
        return !(length == 0 || (onlyDots && length <= 2))
    }
}
