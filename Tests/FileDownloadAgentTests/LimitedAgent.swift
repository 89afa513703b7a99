import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An `fdl agent --tcp 0` of this build started under `prlimit --nofile=N:N`, as on a machine
/// whose hard limit of descriptors is N (1,024 is common), in a temporary directory (socket,
/// state, downloads). Its output and log go to files, read with ``stdout`` and ``stderr``.
final class LimitedAgent: Sendable {
    let directory: TemporaryDirectory
    let process: ChildProcess
    /// The TCP port it listens on (127.0.0.1).
    let port: Int

    var socket: String { directory.path("run/agent.sock") }
    var downloads: URL { directory.file("out") }
    var client: DownloadAgentClient { DownloadAgentClient(socketPath: socket) }
    var stdout: String { (try? String(contentsOfFile: directory.path("stdout"), encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: directory.path("stderr"), encoding: .utf8)) ?? "" }

    /// Starts the agent with a limit of `descriptors` open files (soft and hard) and `arguments`,
    /// and returns once both its socket and its TCP listener accept connections.
    init(descriptors: Int, arguments: [String] = []) async throws {
        let directory = try TemporaryDirectory("agent-limited")
        try FileManager.default.createDirectory(at: directory.file("out"), withIntermediateDirectories: true)
        let process = try ChildProcess("/usr/bin/prlimit", ["--nofile=\(descriptors):\(descriptors)", try FDLProcess.executable,
                                                            "agent", "--socket", directory.path("run/agent.sock"),
                                                            "--state", directory.path("state"), "--downloads", directory.path("out"),
                                                            "--tcp", "0"] + arguments,
                                       environment: ProxyFreeEnvironment.of(),
                                       output: .file(directory.path("stdout")), error: .file(directory.path("stderr")))
        let prefix = "web page on http://127.0.0.1:"
        var port = 0
        do {
            try await poll("fdl agent listens on its socket and on TCP", limit: .seconds(120), interval: .milliseconds(20)) {
                let text = (try? String(contentsOfFile: directory.path("stdout"), encoding: .utf8)) ?? ""
                guard process.isRunning, text.contains("listening on"), let range = text.range(of: prefix) else { return !process.isRunning }
                port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
                return true
            }
        } catch {
            process.kill()
            directory.remove()
            throw error
        }
        guard port > 0 else {
            let errors = (try? String(contentsOfFile: directory.path("stderr"), encoding: .utf8)) ?? ""
            process.kill()
            directory.remove()
            throw TestFailure("fdl agent under prlimit did not start: \(errors)")
        }
        self.directory = directory
        self.process = process
        self.port = port
    }

    /// SIGKILLs the agent and removes its directory.
    func remove() {
        process.kill()
        directory.remove()
    }
}
