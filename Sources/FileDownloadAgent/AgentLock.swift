#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on `STATE/agent.lock`: one agent per state directory. Released when the
/// value is released, or by the kernel when the process dies (SIGKILL included).
final class AgentLock: Sendable {
    private let fd: Int32

    /// Takes the lock without waiting.
    ///
    /// - Throws: ``AgentStartError`` when another process holds it, or the file cannot be opened.
    init(stateDirectory: String) throws {
        let path = stateDirectory + "/agent.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw AgentStartError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw AgentStartError("another agent uses the state directory \(stateDirectory); stop it first")
        }
        self.fd = fd
    }

    deinit { close(fd) }
}
