public import Foundation
import FileDownload
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `fdl` keeps its state for an output directory: `DIR/.fdl/` unless given another path.
///
/// - `state.sqlite`: the library's `SQLiteDownloadStore` (one row per download, no secrets);
///   ``openStore()`` imports a `state.json` left by an older `fdl` into it once;
/// - `lock`: held (`flock`) by the one `fdl get` or `fdl resume` that runs with this state, which
///   also holds an `flock` on `DIR` itself (see ``tryLock()``); the kernel releases both when that
///   process dies, even by SIGKILL;
/// - `fdl.sock`: the socket on which the `fdl` that holds the lock serves the agent's API
///   (see ``socketPath``), for `fdl pause|resume|cancel|watch` from other processes.
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

    /// The SQLite database of the downloads.
    public var storePath: String { path + "/state.sqlite" }
    /// The JSON state file of `fdl` before it used SQLite; imported once by ``openStore()``.
    public var legacyStorePath: String { path + "/state.json" }
    public var lockPath: String { path + "/lock" }

    /// Creates `DIR` and `STATE` when missing.
    ///
    /// - Throws: `DownloadError` with code `store` naming the directory.
    public func create() throws {
        do {
            try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            // Made private when fdl makes it: it holds the store and the control socket. One that
            // exists keeps its mode (fdl never changes the permissions of a directory it did not make).
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw DownloadError(.store, "cannot create the state directory \(path): \(error.localizedDescription)")
        }
    }

    /// Whether there is any state to read (`state.sqlite`, or an older `state.json`).
    public var exists: Bool {
        FileManager.default.fileExists(atPath: storePath) || FileManager.default.fileExists(atPath: legacyStorePath)
    }

    /// Takes the lock without waiting: first `STATE/lock`, then `DIR` itself, so that two `fdl`
    /// runs on one output directory never both run, whatever state directories they were given.
    ///
    /// Both are `flock`s: the kernel releases them when the process ends, however it ends. Nothing
    /// is written to `DIR` for the lock. ``create()`` must have run.
    ///
    /// - Returns: the held lock, or `nil` when another process holds `STATE/lock` (it then serves
    ///   ``socketPath``, so a request can be handed to it).
    /// - Throws: `DownloadError` with code `store` when a lock file or `DIR` cannot
    ///   be opened, or when another process holds `DIR` with another state directory (it would
    ///   not serve requests on this state's socket); nothing is held then.
    public func tryLock() throws -> StateLock? {
        let stateFD = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard stateFD >= 0 else {
            throw DownloadError.fileSystem(errno: errno, "cannot open the lock file \(lockPath)")
        }
        if flock(stateFD, LOCK_EX | LOCK_NB) != 0 {
            close(stateFD)
            return nil
        }
        let directoryFD = open(outputDirectory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else {
            let code = errno
            close(stateFD)
            throw DownloadError.fileSystem(errno: code, "cannot open the download directory \(outputDirectory.path)")
        }
        if flock(directoryFD, LOCK_EX | LOCK_NB) != 0 {
            close(directoryFD)
            close(stateFD)
            throw DownloadError(.store, "another fdl is working in \(outputDirectory.path) with another state directory; "
                                + "wait for it, or use its --state with `fdl pause|resume|cancel`")
        }
        let pid = Data("\(getpid())\n".utf8)
        _ = ftruncate(stateFD, 0)
        pid.withUnsafeBytes { _ = pwrite(stateFD, $0.baseAddress, $0.count, 0) }
        return StateLock(stateFD: stateFD, directoryFD: directoryFD)
    }

    /// The pid written in the lock file by its holder, if readable.
    public var lockHolder: Int32? {
        guard let text = try? String(contentsOfFile: lockPath, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
