import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Whether a process started with ``Subprocess/spawn(_:_:stderrPath:)`` has ended: reaps it once,
/// so that nobody waits for (or signals) a pid that may already belong to another process.
final class ProcessEnd: Sendable {
    let pid: pid_t
    private let ended = Mutex(false)

    init(pid: pid_t) { self.pid = pid }

    /// Whether the process has ended (reaping it if it just did).
    func check() -> Bool {
        ended.withLock { ended in
            if !ended {
                var status: Int32 = 0
                ended = Subprocess.hasEnded(pid, status: &status)
            }
            return ended
        }
    }

    /// Kills the process (SIGKILL) and reaps it, unless it has ended already.
    func kill() {
        ended.withLock { ended in
            guard !ended else { return }
            Glibc.kill(pid, SIGKILL)
            Subprocess.wait(pid)
            ended = true
        }
    }
}
