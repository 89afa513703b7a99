import FileDownloadAgent
import FileDownloadAgentClient
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds the user's download agent, starting one when none answers, as `ssh-agent` and
/// `gpg-agent` users expect: `fdl agent --socket PATH` in its own session (`setsid`, no
/// terminal, so closing the terminal does not stop it), standard input from `/dev/null`, its
/// output appended to `agent.log` in the agent's state directory.
enum AgentLauncher {
    /// How long a started agent has to answer `GET /v1/health`.
    static let startTimeout: Duration = .seconds(30)

    /// What ``ensureRunning(socketPath:)`` found.
    struct Started: Sendable {
        var pid: pid_t
        var logPath: String
    }

    /// Returns `nil` when an agent answers at `socketPath`; otherwise starts one and returns its
    /// pid and log once it answers.
    ///
    /// - Throws: ``CLIError`` (state unavailable) when the agent refuses this user, cannot be
    ///   started, exits, or does not answer within ``startTimeout`` (with the end of its log).
    static func ensureRunning(socketPath: String) async throws -> Started? {
        let client = DownloadAgentClient(socketPath: socketPath, answerTimeout: healthAnswerTimeout)
        if try await answers(client) { return nil }
        let stateDirectory = AgentPaths.defaultStateDirectory()
        do {
            try AgentPaths.makePrivateDirectory(stateDirectory)
        } catch let error as AgentStartError {
            throw CLIError(.stateUnavailable, "cannot start the download agent: \(error.message)")
        }
        let logPath = stateDirectory + "/agent.log"
        let pid = try spawn(["agent", "--socket", socketPath, "--state", stateDirectory], logPath: logPath)
        let deadline = ContinuousClock.now + startTimeout
        var exited = false
        while ContinuousClock.now < deadline {
            if try await answers(client) { return Started(pid: pid, logPath: logPath) }
            if !exited {
                var status: Int32 = 0
                exited = waitpid(pid, &status, WNOHANG) == pid
            }
            // Another `fdl add` may have started one at the same moment: ours then exits, and
            // theirs answers soon.
            try await Task.sleep(for: .milliseconds(50))
        }
        let tail = ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").suffix(5).joined(separator: "\n")
        throw CLIError(.stateUnavailable, "the download agent started for \(socketPath) "
                       + (exited ? "exited" : "did not answer within \(startTimeout)") + "; the end of \(logPath):\n\(tail)")
    }

    /// How long the health check waits for a connected agent's answer.
    static let healthAnswerTimeout: Duration = .seconds(10)

    /// Whether an agent of this user answers at the client's socket.
    private static func answers(_ client: DownloadAgentClient) async throws -> Bool {
        do {
            _ = try await client.status()
            return true
        } catch let error as DownloadAgentClientError where error.code == .noAnswer {
            // Something listens and holds the connection (a stopped agent): starting another
            // would only see it exit ("another agent is listening").
            throw CLIError(.stateUnavailable, "the download agent at \(client.socketPath) does not answer "
                           + "(stopped? `kill -CONT` it, or stop it and try again): \(error.message)")
        } catch let error as DownloadAgentClientError where error.status == 0 {
            return false
        } catch let error as DownloadAgentClientError {
            throw CLIError(.stateUnavailable, "the download agent at \(client.socketPath) refused: \(error.message)")
        }
    }

    /// Marks every descriptor above standard error close-on-exec: nothing else of this process goes
    /// to the agent. A descriptor it inherited (say, the socket a parent watches to learn when
    /// this `fdl` ends) would otherwise stay open as long as the agent runs.
    private static func closeOnExec() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in names.compactMap(Int32.init) where fd > 2 {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// Starts this `fdl` executable with `arguments` in a new session, with the default signal
    /// mask and dispositions, and returns its pid.
    private static func spawn(_ arguments: [String], logPath: String) throws -> pid_t {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeOnExec()
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        // POSIX_SPAWN_SETSID (glibc ≥ 2.26) is not imported into Swift: its value is 0x80.
        let setsid: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw CLIError(.stateUnavailable, "cannot start the download agent (\(executable) agent): \(String(cString: strerror(result)))")
        }
        return pid
    }
}
