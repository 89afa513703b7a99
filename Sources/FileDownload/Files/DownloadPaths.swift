package import Foundation

/// The check every pair of paths a download writes must pass before anything is opened,
/// truncated, moved or deleted there: whatever brought them in (``Downloader/add(id:url:destination:options:)``,
/// resume data, a store record) is not trusted.
package enum DownloadPaths {
    /// Why `destination` and `partPath` cannot be a download's paths, or `nil` when they can.
    ///
    /// They can when the destination is an absolute `file:` URL whose path is standardized (no
    /// `.` or `..` component, no empty name) and holds no NUL, and the staging path is exactly
    /// the destination's path plus `stagingSuffix`.
    package static func problem(destination: URL, partPath: String, stagingSuffix: String) -> String? {
        let path = destination.path
        guard destination.isFileURL, path.hasPrefix("/") else {
            return "the destination \(destination) is not an absolute file path"
        }
        if path.contains("\0") || partPath.contains("\0") {
            return "a path of the download holds a NUL character"
        }
        let names = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if names.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            return "the destination \(path) is not a standardized path (an empty, '.' or '..' component)"
        }
        guard partPath == path + stagingSuffix else {
            return "the staging file \(partPath) is not the destination \(path) plus '\(stagingSuffix)'"
        }
        return nil
    }
}
