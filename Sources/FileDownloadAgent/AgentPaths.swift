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

    /// Creates `path` (and missing parents, mode 0700) and makes sure it is a directory of this
    /// user that no one else may enter: a directory we created is 0700; an existing one owned by
    /// us is set to 0700; one owned by another user, or a symbolic link, is refused.
    ///
    /// - Throws: ``AgentStartError`` saying which of those it is.
    public static func makePrivateDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw AgentStartError("cannot create the directory \(path): \(error.localizedDescription)")
        }
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
        if info.st_mode & 0o777 != 0o700, chmod(path, 0o700) != 0 {
            throw AgentStartError("cannot make \(path) private (mode 0700): \(String(cString: strerror(errno)))")
        }
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
