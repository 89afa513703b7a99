import Foundation

/// Child processes of the agent tests: `curl --unix-socket` run as a person would (for requests the
/// Swift client cannot make: bad bodies, other users), the examples of the documentation, and the
/// helper app `fdl-agent-app`.
public enum CommandRun {
    /// Runs curl with `arguments` (after `--unix-socket socket -sS`), optionally as another user
    /// through `setpriv`, and returns the HTTP status and body.
    public static func curl(socket: String, _ arguments: [String], asUID uid: Int? = nil) async throws -> (status: Int, body: String) {
        var command = ["/usr/bin/curl", "--unix-socket", socket, "-sS", "--max-time", "30", "-w", "\n%{http_code}"] + arguments
        if let uid {
            command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command
        }
        let (status, output, errors) = try await run(command)
        guard [0, 28, 52, 56].contains(status) else {
            throw TestFailure("curl exited with \(status): \(errors)")
        }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Runs `command` to its end (``ChildProcess/run(_:environment:directory:limit:)``) and returns
    /// its exit status, standard output and standard error.
    public static func run(_ command: [String], environment: [String: String]? = nil) async throws -> (Int32, String, String) {
        try await ChildProcess.run(command, environment: environment)
    }
}
