import Foundation

/// A Python test server of `Tests/` (`FileDownloadHTTPTests/Servers/fault_server.py`,
/// `forward_proxy.py`) that binds 127.0.0.1 port 0 and prints `PORT n` once it listens, so two
/// servers never race for one port and nothing polls.
///
/// Its standard input is a pipe this object holds, and the scripts exit when it closes: the
/// server ends with this object or with the test process (even one killed with SIGKILL), never
/// outliving its test. ``stop()`` kills it at once.
public final class PortServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let process: ChildProcess

    /// Starts `python3 Tests/<script> arguments...`, its standard error going to `errorLog` (or
    /// nowhere), and returns once it said its port.
    ///
    /// - Throws: a ``TestFailure`` naming `name` when it ends, or says anything else, before it
    ///   said its port, or says nothing within `limit` (it is killed then).
    public init(_ name: String, script: String, _ arguments: [String], errorLog: String? = nil,
                limit: Duration = .seconds(60)) throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        process = try ChildProcess("/usr/bin/env", ["python3", tests.appendingPathComponent(script).path] + arguments,
                                   input: .pipe, output: .pipe, error: errorLog.map { .file($0) } ?? .null)
        let errors = { errorLog.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? "" }
        let line: String
        do {
            line = try process.firstLine(limit: limit)
        } catch {
            process.kill()
            throw TestFailure("the \(name) said nothing within \(limit) \(errors())")
        }
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            process.kill()
            throw TestFailure("the \(name) said '\(line)' instead of its port \(errors())")
        }
        self.port = port
    }

    /// Kills the server (SIGKILL) and reaps it.
    public func stop() { process.kill() }
}
