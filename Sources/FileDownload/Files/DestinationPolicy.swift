public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a download may write, as every front end decides it (fdl, the agent's API, the fleet's
/// queue): which names a caller may give, what happens to a file already at the destination,
/// which paths the front end keeps for itself, and which names clash through their staging files.
///
/// The rules, in the order a front end applies them:
/// 1. **Names.** A name the user gives (``problem(withName:)``) must be a plain file name: no `/`,
///    no leading dot, no control characters (newline, TAB, ESC, ...), nothing that
///    `FileNameSanitizer` would change. A relative path (``problem(withRelativePath:)``) must be
///    such names joined by `/`. Names that come from URLs or servers are sanitised instead.
/// 2. **Reserved paths** (``reservedPaths``): a destination that is, or lies below, one of them,
///    or whose staging file is one of them, is refused (``reservedPath(hitBy:)``). The agent
///    reserves its socket and its state directory (lock, database, event log).
/// 3. **Existing files** (``existingFiles``): a file (or directory, or link) already at the
///    destination or at its staging name is kept, and the download gets the first free name of
///    ``candidates(_:)``: `NAME.1.EXT`, `NAME.2.EXT`, ... as aria2c's `--auto-file-renaming`
///    does. With ``ExistingFiles/replace`` (asked for by the user: `--allow-overwrite`) the
///    destination is used as given, and the finished download replaces what is there.
/// 4. **Staging names.** `x` and `x.part` are two downloads whose files would overwrite each
///    other (the first's staging file is the second's destination). ``stagingFamily(of:stagingSuffix:)``
///    maps both to one key; the fleet's queue keeps that key unique among unfinished downloads.
///
/// The check of existing files happens when the download is added: a file that appears at the
/// destination while it downloads is replaced when it completes. The directories between the
/// download directory and the file are checked by `DestinationParents` as the download writes.
public struct DestinationPolicy: Sendable, Hashable {
    /// What happens to something already at a destination.
    public enum ExistingFiles: Sendable, Hashable {
        /// It is kept: the download gets the next free name (`NAME.1.EXT`, ...).
        case keep
        /// It is replaced when the download completes (only when the user asked for it).
        case replace
    }

    /// What the downloader appends to a destination for its staging file
    /// (`DownloaderConfiguration.stagingSuffix`).
    public var stagingSuffix: String
    /// What happens to a file already at the destination; ``ExistingFiles/keep`` by default.
    public var existingFiles: ExistingFiles
    /// Absolute paths no download may write to or below (a front end's socket, lock, database or
    /// state directory). Compared as given and with symbolic links resolved.
    public var reservedPaths: [String]

    public init(stagingSuffix: String = ".part", existingFiles: ExistingFiles = .keep, reservedPaths: [String] = []) {
        self.stagingSuffix = stagingSuffix
        self.existingFiles = existingFiles
        self.reservedPaths = reservedPaths.map(Self.resolved)
    }

    // MARK: names

    /// Why `name`, a file name the user gave, cannot be used, or `nil` when it can: it must be
    /// what `FileNameSanitizer.sanitize(_:fallback:)` leaves unchanged (one component of at most
    /// 200 bytes, no `/`, `\` or `:`, no control or format characters, no spaces at either end)
    /// and must not start with a dot.
    public static func problem(withName name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.hasPrefix(".") { return "the name '\(printable(name))' starts with a dot (a hidden file, or '.' or '..')" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the name '\(printable(name))' holds a control character (a newline, TAB, ESC, ...)"
        }
        if FileNameSanitizer.sanitize(name) != name {
            return "the name '\(printable(name))' is not a plain file name (no '/', '\\' or ':', no spaces at either end, at most 200 bytes)"
        }
        return nil
    }

    /// Why `path`, a relative path the user gave (`name` or `sub/dir/name`), cannot be used, or
    /// `nil` when it can: no leading `/`, and each component passes ``problem(withName:)``.
    public static func problem(withRelativePath path: String) -> String? {
        if path.isEmpty { return "the destination is empty" }
        if path.hasPrefix("/") { return "the destination \(printable(path)) must be a relative path (inside the download directory)" }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty { return "the destination \(printable(path)) has an empty component" }
            if let problem = problem(withName: String(component)) { return problem }
        }
        return nil
    }

    /// Why `path`, an absolute path the user gave (the agent's `destination`), cannot be used, or
    /// `nil` when it can: its file name (the last component) must pass ``problem(withName:)``,
    /// and no directory on the way may hold a control character. Directories may start with a
    /// dot (`~/.cache/file` is a plain destination).
    public static func problem(withAbsolutePath path: String) -> String? {
        guard path.hasPrefix("/") else { return "the destination \(printable(path)) is not an absolute path" }
        let components = path.split(separator: "/")
        guard let name = components.last else { return "the destination / names no file" }
        if components.dropLast().contains(where: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) {
            return "the destination \(printable(path)) holds a control character (a newline, TAB, ESC, ...)"
        }
        return problem(withName: String(name))
    }

    /// `name`, then `stem.1.ext`, `stem.2.ext`, ... (`name.1`, ... without an extension): the
    /// names a download walks when the one before is taken.
    public static func candidates(_ name: String) -> LazyMapSequence<Range<Int>, String> {
        let ext = (name as NSString).pathExtension
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        return (0..<Int.max).lazy.map { n in
            n == 0 ? name : ext.isEmpty ? "\(stem).\(n)" : "\(stem).\(n).\(ext)"
        }
    }

    /// The key two destinations share when one's file or staging file is the other's: the
    /// destination without any trailing `stagingSuffix` (`a`, `a.part` and `a.part.part` are
    /// all `a`). Keeping it unique among unfinished downloads keeps their files apart (it also
    /// keeps `a` and `a.part.part` apart, which do not clash: a rule simple enough to state).
    public static func stagingFamily(of destination: String, stagingSuffix: String = ".part") -> String {
        guard !stagingSuffix.isEmpty else { return destination }
        var key = Substring(destination)
        while key.hasSuffix(stagingSuffix), key.count > stagingSuffix.count { key = key.dropLast(stagingSuffix.count) }
        return String(key)
    }

    // MARK: paths

    /// The reserved path `destination` hits (is, lies below, or is the staging file of), or
    /// `nil` when it hits none.
    public func reservedPath(hitBy destination: URL) -> String? {
        guard !reservedPaths.isEmpty else { return nil }
        let given = destination.standardizedFileURL.path
        let real = Self.resolved(given)
        for reserved in reservedPaths {
            for path in [given, real, given + stagingSuffix, real + stagingSuffix]
            where path == reserved || path.hasPrefix(reserved == "/" ? "/" : reserved + "/") {
                return reserved
            }
        }
        return nil
    }

    /// The destination to use for `proposed`, an absolute file URL, in the order of the rules:
    /// a reserved path is refused; with ``ExistingFiles/replace`` `proposed` itself; otherwise the
    /// first of ``candidates(_:)`` in its directory for which neither the name nor its staging
    /// name is occupied (``isOccupied(_:)``) nor taken (`isTaken`, asked with the absolute path
    /// of each).
    ///
    /// - Throws: `DownloadError` ``DownloadError/Code/invalidDestination`` for a reserved path.
    public func destination(for proposed: URL, isTaken: (String) -> Bool = { _ in false }) throws -> URL {
        let proposed = proposed.standardizedFileURL
        if let reserved = reservedPath(hitBy: proposed) {
            throw DownloadError(.invalidDestination,
                                "the destination \(proposed.path) is \(reserved == proposed.path ? "" : "in or next to ")\(reserved), which this program keeps for itself")
        }
        if existingFiles == .replace { return proposed }
        let directory = proposed.deletingLastPathComponent()
        for name in Self.candidates(proposed.lastPathComponent) {
            let path = directory.appendingPathComponent(name).path
            let staging = path + stagingSuffix
            if Self.isOccupied(path) || Self.isOccupied(staging) || isTaken(path) || isTaken(staging) { continue }
            return directory.appendingPathComponent(name, isDirectory: false)
        }
        return proposed  // unreachable in practice: one of 2^63 names is free
    }

    /// Whether anything is at `path`: a file, a directory, a symbolic link (not followed, so a
    /// dangling one counts).
    public static func isOccupied(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// `path` with its longest existing prefix's symbolic links resolved (`realpath` of that
    /// prefix, the rest appended), standardized.
    static func resolved(_ path: String) -> String {
        var head = (path as NSString).standardizingPath
        var tail: [String] = []
        while !head.isEmpty, head != "/" {
            if let real = realpath(head, nil) {
                defer { free(real) }
                let base = String(cString: real)
                return (base == "/" ? "" : base) + tail.reversed().map { "/" + $0 }.joined()
            }
            tail.append((head as NSString).lastPathComponent)
            head = (head as NSString).deletingLastPathComponent
        }
        return (path as NSString).standardizingPath
    }

    /// `text` with control characters shown as `\u{...}` (a name in a message never moves the
    /// terminal's cursor).
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
