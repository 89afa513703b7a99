import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DownloadRecord {
    /// Why this record's paths cannot be used in `directory`, or `nil` when they can.
    ///
    /// A record comes from a file anybody who can write the state directory could have written, so
    /// its paths are not trusted: they must pass the library's check (the staging file is the
    /// destination plus `.part`), and the destination and the staging file must each be a file
    /// *directly* in `directory`, which is what `fdl` itself stores. The check compares the real
    /// path (symbolic links and `..` resolved by the kernel) of the directory each path names with
    /// the real path of `directory`, so `DIR/link/x` with `link` pointing elsewhere, or
    /// `DIR/a/../../x`, is refused; a path whose directory does not exist is refused too.
    func containmentProblem(in directory: URL) -> String? {
        guard destination.isFileURL else {
            return "its destination \(destination.absoluteString) is not a file path"
        }
        guard let root = Self.realPath(directory.path) else {
            return "its download directory \(directory.path) cannot be resolved"
        }
        for (what, path) in [("destination", destination.path), ("staging file", partPath)]
        where !Self.isFile(path, directlyIn: root) {
            return "its \(what) \(path) lies outside \(directory.path)"
        }
        // Then the library's own rule: an absolute, standardized destination, and a staging file
        // that is exactly the destination plus the suffix (a forged staging path naming another
        // file of DIR would otherwise be what `fdl cancel` deletes).
        return DownloadPaths.problem(destination: destination, partPath: partPath,
                                     stagingSuffix: DownloaderConfiguration().stagingSuffix)
    }

    /// Whether `path` names an entry (not `.` or `..`) of the directory whose real path is `root`.
    private static func isFile(_ path: String, directlyIn root: String) -> Bool {
        guard path.hasPrefix("/"), !path.hasSuffix("/"), !path.contains("\0") else { return false }
        let name = (path as NSString).lastPathComponent
        guard !name.isEmpty, name != ".", name != ".." else { return false }
        return realPath((path as NSString).deletingLastPathComponent) == root
    }

    /// `realpath(3)` of `path`, or `nil` when it cannot be resolved.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
