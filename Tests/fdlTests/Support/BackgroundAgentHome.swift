import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private `$XDG_RUNTIME_DIR` and `$XDG_STATE_HOME` for the `fdl` processes of one test, so the
/// download agent `fdl add` starts listens and keeps its state in the test's temporary directory;
/// ``stopAgent()`` stops it (the test must call it before it ends).
final class BackgroundAgentHome: Sendable {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("agent-home")
    }

    /// The environment for `FDLProcess`.
    var environment: [String: String?] {
        ["XDG_RUNTIME_DIR": directory.path("run"), "XDG_STATE_HOME": directory.path("state")]
    }

    /// The default socket under this environment.
    var socket: String { directory.path("run/fdl/agent.sock") }
    /// The agent's log, as `fdl add` names it.
    var log: String { directory.path("state/fdl/agent/agent.log") }

    /// The pid of the agent `fdl add` started, from its line "started the download agent (pid N, ...".
    static func startedPID(in output: String) -> pid_t? {
        guard let range = output.range(of: "started the download agent (pid ") else { return nil }
        return pid_t(output[range.upperBound...].prefix { $0.isNumber })
    }

    /// SIGTERMs agent `pid` and waits (bounded) until its socket is gone, then SIGKILLs it if it
    /// still runs; removes the directory.
    func stopAgent(pid: pid_t?) async {
        if let pid, pid > 0 {
            kill(pid, SIGTERM)
            // Polled, bounded: the agent is not this process's child (`fdl add` started it
            // detached), so its end cannot be awaited; it removes its socket as it stops.
            let deadline = ContinuousClock.now + .seconds(30)
            while FileManager.default.fileExists(atPath: socket), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            }
            kill(pid, SIGKILL)
        }
        directory.remove()
    }
}
