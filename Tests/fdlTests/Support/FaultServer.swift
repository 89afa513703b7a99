import FileDownloadTestSupport
import Foundation

/// The fault-injecting HTTP server of the HTTP tests (`Tests/FileDownloadHTTPTests/Servers/
/// fault_server.py`) serving `root` on 127.0.0.1: it binds port 0 and prints the port the kernel
/// gave it, so two servers never race for one.
final class FaultServer: Sendable {
    let port: Int
    private let server: PortServer

    init(root: URL) throws {
        server = try PortServer("fault server", script: "FileDownloadHTTPTests/Servers/fault_server.py", [root.path])
        port = server.port
    }

    /// `http://127.0.0.1:PORT/path?query`.
    func url(_ path: String, _ query: String = "") -> String {
        "http://127.0.0.1:\(port)/\(path)" + (query.isEmpty ? "" : "?\(query)")
    }

    /// Stops the server (SIGKILL) and reaps it.
    func stop() { server.stop() }
}
