import FileDownloadTestSupport
import Foundation

/// The fault-injecting HTTP(S) server of `Servers/fault_server.py`, serving the files of `root`
/// on 127.0.0.1. It prints its port; nothing polls.
final class FaultServer: Sendable {
    let port: Int
    let scheme: String
    private let server: PortServer

    /// Starts the server over HTTP, or over HTTPS with `certificates`.
    init(root: URL, certificates: TestCertificates? = nil) throws {
        var arguments = [root.path]
        if let certificates {
            arguments += ["--cert", certificates.serverCertificate.path, "--key", certificates.serverKey.path]
        }
        self.scheme = certificates == nil ? "http" : "https"
        server = try PortServer("fault server", script: "FileDownloadHTTPTests/Servers/fault_server.py", arguments,
                                errorLog: root.appendingPathComponent("fault-server-\(scheme).log").path)
        port = server.port
    }

    /// `scheme://127.0.0.1:port/path?query`, with a unique `t=` so request counters are per test.
    func url(_ path: String, _ query: String = "") -> URL {
        let unique = "t=\(UUID().uuidString.prefix(8))"
        let q = query.isEmpty ? unique : "\(query)&\(unique)"
        return URL(string: "\(scheme)://127.0.0.1:\(port)/\(path)?\(q)")!
    }

    /// The connections, requests and `Range` headers the server has seen since it started.
    func stats() throws -> (connections: Int, requests: Int, ranges: [String]) {
        let curl = try ChildProcess.runBlocking(["/usr/bin/curl", "-sk", "\(scheme)://127.0.0.1:\(port)/_stats"],
                                                environment: ProxyFreeEnvironment.of(), limit: .seconds(60))
        let data = Data(curl.stdout.utf8)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (object["connections"] as? Int ?? -1, object["requests"] as? Int ?? -1, object["ranges"] as? [String] ?? [])
    }

    func stop() { server.stop() }
}
