public import Foundation
import FileDownload
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `fdl` keeps its state for an output directory: `DIR/.fdl/` unless given another path.
///
/// - `state.json`: the ``JSONFileDownloadStore`` (one record per download, no secrets);
/// - `lock`: held (`flock`) by the one `fdl get` or `fdl resume` that runs on `DIR`; the kernel
///   releases it when that process dies, even by SIGKILL;
/// - `control/`: requests (`pause`, `resume`, `cancel`) from other `fdl` processes to the one
///   that holds the lock, as small JSON files it consumes.
public struct StateDirectory: Sendable {
    /// The output directory (where finished files go).
    public let outputDirectory: URL
    /// `DIR/.fdl` unless given.
    public let path: String

    /// The state of `outputDirectory`, kept at `path` (default `outputDirectory/.fdl`).
    public init(outputDirectory: URL, path: String? = nil) {
        self.outputDirectory = outputDirectory.standardizedFileURL
        self.path = path ?? self.outputDirectory.appendingPathComponent(".fdl").path
    }

    public var storePath: String { path + "/state.json" }
    public var lockPath: String { path + "/lock" }
    public var controlPath: String { path + "/control" }

    /// Creates `DIR` and `DIR/.fdl/control` when missing.
    ///
    /// - Throws: ``FileDownload/DownloadError`` with code `store` naming the directory.
    public func create() throws {
        do {
            try FileManager.default.createDirectory(atPath: controlPath, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(.store, "cannot create the state directory \(path): \(error.localizedDescription)")
        }
    }

    /// Whether `DIR/.fdl/state.json` exists.
    public var exists: Bool { FileManager.default.fileExists(atPath: storePath) }

    /// Takes the lock without waiting.
    ///
    /// - Returns: the held lock, or `nil` when another process holds it.
    /// - Throws: ``FileDownload/DownloadError`` with code `store` when the lock file cannot be opened.
    public func tryLock() throws -> StateLock? {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DownloadError.fileSystem(errno: errno, "cannot open the lock file \(lockPath)")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            return nil
        }
        let pid = Data("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        pid.withUnsafeBytes { _ = pwrite(fd, $0.baseAddress, $0.count, 0) }
        return StateLock(fd: fd)
    }

    /// The pid written in the lock file by its holder, if readable.
    public var lockHolder: Int32? {
        guard let text = try? String(contentsOfFile: lockPath, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
