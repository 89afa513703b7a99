import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A command run when a download completes or fails (`fdl agent --on-complete`, a download's
/// `"notify": {"command": ...}`, `fdl get --on-complete`): `/bin/sh -c COMMAND` with the event's
/// values in its environment (``CompletionEnvironment``).
///
/// One ``run(environment:)``:
/// 1. starts `/bin/sh -c COMMAND` in a process group of its own, with standard input from
///    `/dev/null` and standard output sent to standard error (so it never mixes with what the
///    program writes on its standard output, such as `fdl get --json`), no descriptor above 2
///    open (with glibc 2.34 or later, through `posix_spawn_file_actions_addclosefrom_np`; an
///    older glibc leaves the descriptors not marked close-on-exec open), an empty signal mask and
///    default signal handlers;
/// 2. waits for it on a thread of its own (`waitid` on its pid, never on any other child);
/// 3. kills its whole process group with SIGKILL when it runs longer than ``timeout``, or when the
///    calling task is cancelled, and then still waits for it to end;
/// 4. returns how it ended. Only ``Outcome/exited(_:)`` with 0 is a success.
public struct CompletionCommand: Sendable {
    /// How one run ended.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (the number).
        case signalled(Int32)
        /// It ran longer than the timeout and was killed.
        case timedOut(Duration)
        /// It could not be started (the reason).
        case notStarted(String)

        /// Whether it exited with status 0.
        public var succeeded: Bool { self == .exited(0) }

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "ended by signal \(signal)"
            case .timedOut(let timeout): "ran longer than \(timeout) and was killed"
            case .notStarted(let reason): "could not be started: \(reason)"
            }
        }
    }

    /// The command line, run with `/bin/sh -c`.
    public var command: String
    /// How long one run may take before its process group is killed with SIGKILL.
    public var timeout: Duration

    public init(_ command: String, timeout: Duration = .seconds(30)) {
        self.command = command
        self.timeout = timeout
    }

    /// Runs the command once with `environment` added to this process's environment (its values
    /// win) and returns how it ended (see the type's description).
    public func run(environment: [String: String]) async -> Outcome {
        let child: Child
        do {
            child = try Child(command: command, environment: environment)
        } catch {
            return .notStarted(error.reason)
        }
        let timeout = self.timeout
        let killer = Task {
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            // Marked first, so that the wait that the kill ends finds it marked.
            child.timedOut.withLock { $0 = true }
            if !child.kill() { child.timedOut.withLock { $0 = false } }
        }
        let status = await withTaskCancellationHandler {
            await child.wait()
        } onCancel: {
            _ = child.kill()
        }
        killer.cancel()
        if child.timedOut.withLock({ $0 }) { return .timedOut(timeout) }
        if status.exited { return .exited(status.code) }
        return .signalled(status.code)
    }

    /// Why a command could not be started.
    struct SpawnError: Error {
        var reason: String
    }

    /// A started child: its pid, its end once known, and whether it was reaped (after which its
    /// pid may belong to another process, and it is never signalled).
    private final class Child: Sendable {
        let pid: pid_t
        /// Set before the child is reaped: `kill()` looks at it under the same lock.
        let ended = Mutex(false)
        let timedOut = Mutex(false)

        init(command: String, environment: [String: String]) throws(SpawnError) {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
            Self.addClosefrom(&actions, 3)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
            var merged = ProcessInfo.processInfo.environment
            merged.merge(environment) { $1 }
            let words: [String] = ["/bin/sh", "-c", command]
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in envp { free(pointer) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
            guard spawned == 0 else { throw SpawnError(reason: String(cString: strerror(spawned))) }
            self.pid = pid
        }

        /// Kills the child's process group unless the child was reaped; whether it sent the signal.
        func kill() -> Bool {
            ended.withLock { ended in
                guard !ended else { return false }
                return Glibc.kill(-pid, SIGKILL) == 0
            }
        }

        /// Waits on a thread of its own until the child ends; marks it ended, then reaps it.
        func wait() async -> (exited: Bool, code: Int32) {
            await withCheckedContinuation { continuation in
                let pid = self.pid
                Thread {
                    var info = siginfo_t()
                    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
                    self.ended.withLock { $0 = true }
                    var raw: Int32 = 0
                    while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (macros).
                    let signal = raw & 0x7f
                    continuation.resume(returning: signal == 0 ? (true, (raw >> 8) & 0xff) : (false, signal))
                }.start()
            }
        }

        /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34; Swift's `Glibc` does not
        /// declare it): the child closes every descriptor from `lowest` on.
        private static func addClosefrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) {
            typealias Function = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let address = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
            _ = unsafeBitCast(address, to: Function.self)(actions, lowest)
        }
    }
}
