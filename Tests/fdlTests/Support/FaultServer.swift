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

    /// A signed link to `path` valid for `ttl` seconds from its first request (the server's
    /// `/_sign`), with `query` after it.
    func sign(_ path: String, ttl: Double = 2, _ query: String = "") async throws -> URL {
        let curl = try await ChildProcess.run(["/usr/bin/curl", "-s", url("_sign", "path=/\(path)&ttl=\(ttl)")],
                                              environment: ProxyFreeEnvironment.of(), limit: .seconds(60))
        let object = try JSONSerialization.jsonObject(with: Data(curl.stdout.utf8)) as? [String: Any] ?? [:]
        let signed = object["url"] as? String ?? ""
        return URL(string: "http://127.0.0.1:\(port)\(signed)" + (query.isEmpty ? "" : "&\(query)"))!
    }

    /// Runs `body` with a fault server serving `signed.bin`, 1 MB of `sampleBytes` (5 s at
    /// `rate=200000`, so short signed links expire on the way), and those bytes; removes both after.
    static func withSignedFile(seed: UInt8, _ body: (FaultServer, Data) async throws -> Void) async throws {
        let root = try TemporaryDirectory("fault-signed")
        defer { root.remove() }
        let data = sampleBytes(1_000_000, seed: seed)
        try data.write(to: root.file("signed.bin"))
        let fault = try FaultServer(root: root.url)
        defer { fault.stop() }
        try await body(fault, data)
    }

    /// Stops the server (SIGKILL) and reaps it.
    func stop() { server.stop() }
}
