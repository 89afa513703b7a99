import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts programs with posix_spawn and reaps them with waitpid (Foundation's `Process` can hang
/// in `waitUntilExit` when called from many tasks).
enum Subprocess {
    /// Starts `tool` with `arguments`; stdout goes to /dev/null, stderr to `stderrPath` (or /dev/null).
    static func spawn(_ tool: String, _ arguments: [String], stderrPath: String? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // The calling thread may block signals (Dispatch's threads do): give the child a clean
        // mask and default handlers, so that SIGTERM ends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, tool, &actions, &attributes, argv, environ)
        guard rc == 0 else {
            throw TestFailure("cannot start \(tool): \(String(cString: strerror(rc)))")
        }
        return pid
    }

    /// Runs `tool` to the end; throws when it fails.
    static func run(_ tool: String, _ arguments: [String]) throws {
        let pid = try spawn(tool, arguments)
        let status = wait(pid)
        guard status == 0 else {
            throw TestFailure("\(tool) \(arguments.joined(separator: " ")) failed with status \(status)")
        }
    }

    /// Waits for `pid` to end; its exit status, or 128 + signal.
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    /// Whether `pid` has ended (reaps it if so); `status` is set then.
    static func hasEnded(_ pid: pid_t, status: inout Int32) -> Bool {
        var raw: Int32 = 0
        let rc = waitpid(pid, &raw, WNOHANG)
        if rc == pid { status = raw; return true }
        return rc < 0
    }
}
