import FileDownloadTestSupport
import Foundation

/// The fault-injecting HTTP(S) server of `Servers/fault_server.py`, serving the files of `root`
/// on 127.0.0.1. It prints its port; nothing polls.
final class FaultServer: Sendable {
    let port: Int
    let scheme: String
    private let process: ServerProcess

    /// Starts the server over HTTP, or over HTTPS with `certificates`.
    init(root: URL, certificates: TestCertificates? = nil) throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Servers/fault_server.py").path
        var arguments = [script, root.path]
        if let certificates {
            arguments += ["--cert", certificates.serverCertificate.path, "--key", certificates.serverKey.path]
        }
        self.scheme = certificates == nil ? "http" : "https"
        let process = try ServerProcess("/usr/bin/env", ["python3"] + arguments,
                                        stderrFile: root.appendingPathComponent("fault-server-\(scheme).log"))
        let line = try process.firstLine()
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw TestFailure("the fault server said '\(line)' instead of its port: \(process.stderrText)")
        }
        self.port = port
        self.process = process
    }

    /// `scheme://127.0.0.1:port/path?query`, with a unique `t=` so request counters are per test.
    func url(_ path: String, _ query: String = "") -> URL {
        let unique = "t=\(UUID().uuidString.prefix(8))"
        let q = query.isEmpty ? unique : "\(query)&\(unique)"
        return URL(string: "\(scheme)://127.0.0.1:\(port)/\(path)?\(q)")!
    }

    /// The connections, requests and `Range` headers the server has seen since it started.
    func stats() throws -> (connections: Int, requests: Int, ranges: [String]) {
        let curl = Process()
        let output = Pipe()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sk", "\(scheme)://127.0.0.1:\(port)/_stats"]
        curl.standardOutput = output
        curl.environment = ProxyFreeEnvironment.of()
        try curl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (object["connections"] as? Int ?? -1, object["requests"] as? Int ?? -1, object["ranges"] as? [String] ?? [])
    }

    func stop() { process.stop() }
}
