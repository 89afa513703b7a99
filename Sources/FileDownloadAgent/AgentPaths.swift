public import Foundation
import FileDownloadAgentClient
#if canImport(Glibc)
import Glibc
#endif

/// Where the agent keeps its socket and its state, and how those are made private.
public enum AgentPaths {
    /// The socket path when none is given: `AgentSocketPath.default(environment:)`.
    public static func defaultSocket(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AgentSocketPath.default(environment: environment)
    }

    /// The state directory when none is given: `$XDG_STATE_HOME/fdl/agent`, else
    /// `~/.local/state/fdl/agent`.
    public static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AgentSocketPath.stateHome(environment: environment) + "/fdl/agent"
    }

    /// Creates `path` and its missing parents, each mode 0700, and makes sure `path` is a
    /// directory of this user that no one else may change.
    ///
    /// Only directories this call creates get mode 0700; an existing directory keeps its mode (the
    /// agent never changes the permissions of a directory it did not make, such as `/tmp`). An
    /// existing `path` that another user owns, that group or others may write to, or that is a
    /// symbolic link or a file is refused; choose a private directory (or a subdirectory that does
    /// not exist yet, which is then created 0700).
    ///
    /// - Throws: ``AgentStartError`` saying which of those it is.
    public static func makePrivateDirectory(_ path: String) throws {
        let createdHere = try createMissingDirectories(path)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw AgentStartError("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw AgentStartError("\(path) is not a directory (a symbolic link or a file); remove it or choose another path")
        }
        guard info.st_uid == getuid() else {
            throw AgentStartError("\(path) belongs to uid \(info.st_uid), not to this user (uid \(getuid())); choose another path")
        }
        if createdHere { return }
        if info.st_mode & 0o022 != 0 {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw AgentStartError("\(path) may be written by other users (mode \(mode)); the agent does not change a directory it did not create: use a private directory, or a path in a new subdirectory (such as \(path)/fdl/) that the agent creates 0700")
        }
    }

    /// Creates the directories of `path` that do not exist, outermost first, each 0700, and
    /// returns whether it created `path` itself. One that appears meanwhile counts as existing.
    private static func createMissingDirectories(_ path: String) throws -> Bool {
        var missing: [String] = []
        var candidate = path
        var info = stat()
        while !candidate.isEmpty, candidate != "/", lstat(candidate, &info) != 0, errno == ENOENT {
            missing.append(candidate)
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        var createdPath = false
        for directory in missing.reversed() {
            createdPath = false
            if mkdir(directory, 0o700) != 0 {
                if errno == EEXIST { continue }
                throw AgentStartError("cannot create the directory \(directory): \(String(cString: strerror(errno)))")
            }
            if chmod(directory, 0o700) != 0 {
                throw AgentStartError("cannot make \(directory) private (mode 0700): \(String(cString: strerror(errno)))")
            }
            createdPath = true
        }
        return createdPath
    }

    /// Makes ready to bind a socket at `path`: a socket left by an agent that is gone is removed;
    /// a socket some process still accepts connections on means another agent runs there; any
    /// other file is left alone and refused.
    public static func clearStaleSocket(at path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw AgentStartError("\(path) exists and is not a socket; remove it or choose another --socket path")
        }
        if isAccepting(path) {
            throw AgentStartError("another agent is listening on \(path); stop it first (or use another --socket path)")
        }
        guard unlink(path) == 0 else {
            throw AgentStartError("cannot remove the stale socket \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether a process accepts connections on the Unix socket at `path`.
    static func isAccepting(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }
}
