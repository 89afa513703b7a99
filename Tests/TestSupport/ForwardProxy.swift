public import Foundation

/// The forward proxy of `Tests/FileDownloadHTTPTests/Servers/forward_proxy.py` on 127.0.0.1: it
/// binds port 0 and prints the port the kernel gave it, so two proxies never race for one. It
/// forwards absolute-form `GET`s and tunnels `CONNECT`, and appends every request line to a log
/// this class reads (``requests``).
public final class ForwardProxy: Sendable {
    public let port: Int
    private let server: PortServer
    private let logPath: String

    /// Starts the proxy, logging into `directory`; with `credentials` (`user:password`) it answers
    /// 407 to requests without them. It ends with ``stop()``, or when this object goes away.
    public init(logIn directory: URL, credentials: String? = nil) throws {
        logPath = directory.appendingPathComponent("proxy-\(UUID().uuidString.prefix(8)).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        server = try PortServer("forward proxy", script: "FileDownloadHTTPTests/Servers/forward_proxy.py",
                                [logPath] + (credentials.map { ["--auth", $0] } ?? []))
        port = server.port
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The requests the proxy saw, in order: `GET http://host:port/path`, `CONNECT host:port`,
    /// with ` auth` appended when the request carried `Proxy-Authorization`.
    public var requests: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stops the proxy (SIGKILL) and reaps it.
    public func stop() { server.stop() }
}
