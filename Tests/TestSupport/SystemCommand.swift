import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a system tool (`mount`, `ip`) to its end with `posix_spawn` and `waitpid`. Not
/// `Foundation.Process`: its `waitUntilExit` needs a dispatch thread to learn of the exit, and
/// on a 2-core runner both threads of the cooperative pool may be the ones waiting (a deadlock).
public enum SystemCommand {
    /// Runs `tool` with `arguments`; throws a ``TestFailure`` with its standard error when it
    /// cannot start or exits with a status other than 0.
    public static func run(_ tool: String, _ arguments: [String]) throws {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw TestFailure("pipe() failed: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw TestFailure("cannot run \(tool): error \(spawned)")
        }
        var errors = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(pipe[0], &buffer, buffer.count)
            if n > 0 { errors.append(contentsOf: buffer[0..<n]) } else if n < 0 && errno == EINTR { continue } else { break }
        }
        close(pipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw TestFailure("\(tool) \(arguments.joined(separator: " ")) failed (status \(status)): \(String(decoding: errors, as: UTF8.self))")
        }
    }
}
