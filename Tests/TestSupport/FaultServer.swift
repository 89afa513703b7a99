public import Foundation

/// The fault-injecting HTTP(S) server of `Tests/FileDownloadHTTPTests/Servers/fault_server.py`,
/// serving the files of `root` on 127.0.0.1: it binds port 0 and prints the port the kernel gave
/// it, so two servers never race for one, and nothing polls. One fixture for every test target.
public final class FaultServer: Sendable {
    public let port: Int
    /// `http`, or `https` for a server started with certificates.
    public let scheme: String
    private let server: PortServer

    /// Starts the server over HTTP, or over HTTPS with `certificates`; its standard error goes to
    /// `fault-server-SCHEME.log` in `root`.
    public init(root: URL, certificates: TestCertificates? = nil) throws {
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
    public func url(_ path: String, _ query: String = "") -> URL {
        let unique = "t=\(UUID().uuidString.prefix(8))"
        let q = query.isEmpty ? unique : "\(query)&\(unique)"
        return URL(string: "\(scheme)://127.0.0.1:\(port)/\(path)?\(q)")!
    }

    /// `scheme://127.0.0.1:PORT/path?query` as a string, without a `t=` (the form a command line
    /// is given).
    public func address(_ path: String, _ query: String = "") -> String {
        "\(scheme)://127.0.0.1:\(port)/\(path)" + (query.isEmpty ? "" : "?\(query)")
    }

    /// The connections, requests and `Range` headers the server has seen since it started.
    public func stats() throws -> (connections: Int, requests: Int, ranges: [String]) {
        let object = try get("/_stats")
        return (object["connections"] as? Int ?? -1, object["requests"] as? Int ?? -1, object["ranges"] as? [String] ?? [])
    }

    /// The targets (path and query) of the file requests the server has seen, in order of arrival.
    public func requestTargets() throws -> [String] {
        try get("/_stats")["targets"] as? [String] ?? []
    }

    /// The body bytes of files the server has sent since it started.
    public func bodyBytesSent() throws -> Int64 {
        Int64(try get("/_stats")["bodyBytes"] as? Int ?? -1)
    }

    /// A signed link to `path` valid for `ttl` seconds from its first request (`/_sign`), with
    /// `query` after its token.
    public func sign(_ path: String, ttl: Double = 2, _ query: String = "") async throws -> URL {
        let curl = try await ChildProcess.run(curlCommand("/_sign?path=/\(path)&ttl=\(ttl)"),
                                              environment: ProxyFreeEnvironment.of(), limit: .seconds(60))
        let object = try JSONSerialization.jsonObject(with: Data(curl.stdout.utf8)) as? [String: Any] ?? [:]
        let signed = object["url"] as? String ?? ""
        return URL(string: "\(scheme)://127.0.0.1:\(port)\(signed)" + (query.isEmpty ? "" : "&\(query)"))!
    }

    /// Runs `body` with a fault server over a fresh root, that root and a fresh output directory;
    /// stops the server and removes both after.
    public static func withRootAndOutput(
        _ body: (FaultServer, TemporaryDirectory, TemporaryDirectory) async throws -> Void
    ) async throws {
        let root = try TemporaryDirectory("fault-root")
        let out = try TemporaryDirectory("fdl-out")
        let server = try FaultServer(root: root.url)
        defer {
            server.stop()
            root.remove()
            out.remove()
        }
        try await body(server, root, out)
    }

    /// Runs `body` with a fault server serving `signed.bin`, 1 MB of `sampleBytes` (5 s at
    /// `rate=200000`, so short signed links expire on the way), and those bytes; removes both after.
    public static func withSignedFile(seed: UInt8, _ body: (FaultServer, Data) async throws -> Void) async throws {
        let root = try TemporaryDirectory("fault-signed")
        defer { root.remove() }
        let data = sampleBytes(1_000_000, seed: seed)
        try data.write(to: root.file("signed.bin"))
        let fault = try FaultServer(root: root.url)
        defer { fault.stop() }
        try await body(fault, data)
    }

    /// The JSON object the server answers at `target`.
    private func get(_ target: String) throws -> [String: Any] {
        let curl = try ChildProcess.runBlocking(curlCommand(target), environment: ProxyFreeEnvironment.of(), limit: .seconds(60))
        return try JSONSerialization.jsonObject(with: Data(curl.stdout.utf8)) as? [String: Any] ?? [:]
    }

    private func curlCommand(_ target: String) -> [String] {
        ["/usr/bin/curl", "-sk", "\(scheme)://127.0.0.1:\(port)\(target)"]
    }

    /// Stops the server (SIGKILL) and reaps it.
    public func stop() { server.stop() }
}
