import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An `fdl agent --tcp PORT --open` of this build in a temporary directory (socket, state,
/// downloads), with the port and login URL it printed, and curl over TCP as a browser or a
/// script would send requests.
final class WebAgent: Sendable {
    let directory: TemporaryDirectory
    private let current = Shared<(process: FDLProcess, port: Int, login: String)?>(nil)

    var socket: String { directory.path("run/agent.sock") }
    var state: String { directory.path("state") }
    var downloads: URL { directory.file("out") }
    var client: DownloadAgentClient { DownloadAgentClient(socketPath: socket) }
    var process: FDLProcess? { current.withLock { $0?.process } }
    var port: Int { current.withLock { $0?.port ?? 0 } }
    /// The URL `--open` printed: `http://127.0.0.1:PORT/ui/#token=TOKEN`.
    var loginURL: String { current.withLock { $0?.login ?? "" } }
    /// `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    /// The token of `STATE/agent.token`.
    var token: String {
        get throws { try String(contentsOfFile: state + "/agent.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    init() throws {
        directory = try TemporaryDirectory("agent-web")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    }

    /// Starts the agent on TCP `port` (0: any), with more options of `fdl agent` (`--aria2-rpc`),
    /// and returns once both its socket and its TCP listener accept connections.
    func start(port: Int = 0, arguments: [String] = []) async throws {
        let agent = try FDLProcess(["agent", "--socket", socket, "--state", state, "--downloads", downloads.path,
                                    "--tcp", String(port), "--open"] + arguments)
        do {
            try await agent.waitForOutput(containing: "listening on")
            try await agent.waitForOutput(containing: "/ui/#token=")
        } catch {
            agent.send(SIGKILL)
            throw TestFailure("fdl agent --tcp did not start: \(agent.stdout) \(agent.stderr)")
        }
        let login = agent.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "http://127.0.0.1:").map { String(line[$0.lowerBound...]) }
        }.first { $0.contains("/ui/#token=") } ?? ""
        let bound = Int(login.dropFirst("http://127.0.0.1:".count).prefix { $0.isNumber }) ?? 0
        current.withLock { $0 = (agent, bound, login) }
    }

    /// SIGTERMs the agent and returns its exit status.
    func stop() async -> Int32? {
        guard let agent = process else { return nil }
        agent.send(SIGTERM)
        return await agent.exitStatus()
    }

    /// Throws, saying how to install them, when Debian's `chromium` or `chromedriver` is missing.
    static func requireChromium() throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw TestFailure("\(tool) is missing: run scripts/install-deps.sh (apt-get install -y chromium chromium-driver)")
        }
    }

    /// Kills the agent and removes every file.
    func remove() async {
        if let agent = process {
            agent.send(SIGKILL)
            _ = await agent.exitStatus()
        }
        directory.remove()
    }

    /// Runs `body` with a started agent and removes everything afterwards.
    static func with(_ body: (WebAgent) async throws -> Void) async throws {
        let agent = try WebAgent()
        do {
            try await agent.start()
            try await body(agent)
        } catch {
            await agent.remove()
            throw error
        }
        await agent.remove()
    }

    /// Sends a request with curl to 127.0.0.1:PORT and returns the status, the header fields
    /// (names in lower case) and the body.
    func curl(_ arguments: [String]) async throws -> (status: Int, headers: [String: String], body: String) {
        let (status, output, errors) = try await CommandRun.run(
            ["/usr/bin/curl", "-sS", "--max-time", "30", "-i", "-w", "\n%{http_code}"] + arguments)
        guard status == 0 else { throw TestFailure("curl \(arguments) exited with \(status): \(errors)") }
        var lines = output.components(separatedBy: "\n")
        let code = Int(lines.removeLast()) ?? 0
        let text = lines.joined(separator: "\n")
        let parts = text.components(separatedBy: "\r\n\r\n")
        var headers: [String: String] = [:]
        for line in parts[0].components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (code, headers, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
