public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// nginx serving a directory on 127.0.0.1 with a per-connection rate limit, started by the test
/// and stopped by ``stop()``. Its access log records the body bytes of every response, so a test
/// can count the bytes that were sent. (The fdl and HTTP tests have nginx servers of their own,
/// with routes for their cases.)
public final class NginxServer {
    public let port: UInt16
    /// `http://127.0.0.1:PORT/`.
    public let baseURL: URL
    private let prefix: URL
    private let process: ChildProcess

    /// Starts nginx serving `root`, each response limited to `bytesPerSecond`. Waits until nginx itself
    /// listens (``LoopbackLaunch``); throws with nginx's error log when it does not.
    public init(root: URL, bytesPerSecond: Int) async throws {
        prefix = FileManager.default.temporaryDirectory.appending(path: "fdl-nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: prefix.appending(path: "logs"), withIntermediateDirectories: true)
        let prefix = prefix
        let launched = try await LoopbackLaunch.start("nginx (Debian package nginx)") { ports in
            let process = try Self.start(root: root, bytesPerSecond: bytesPerSecond, prefix: prefix, port: ports[0])
            return (process, LoopbackLaunch.Watch(process, diagnostics: {
                (try? String(contentsOf: prefix.appending(path: "logs/error.log"), encoding: .utf8)) ?? ""
            }))
        }
        process = launched.server
        port = UInt16(launched.ports[0])
        baseURL = URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// Starts nginx inside `namespace`, listening on its address at `port` (the namespace is new,
    /// so the port is free there), each response limited to `bytesPerSecond`. Waits (bounded)
    /// until it accepts connections from the host side.
    public init(root: URL, bytesPerSecond: Int, in namespace: NetworkNamespace, port: Int = 8080) async throws {
        prefix = FileManager.default.temporaryDirectory.appending(path: "fdl-nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: prefix.appending(path: "logs"), withIntermediateDirectories: true)
        process = try Self.start(root: root, bytesPerSecond: bytesPerSecond, prefix: prefix, port: port,
                                 address: namespace.address, launcher: namespace.exec)
        self.port = UInt16(port)
        baseURL = URL(string: "http://\(namespace.address):\(port)/")!
        let deadline = ContinuousClock.now + .seconds(20)
        while !Self.accepts(address: namespace.address, port: port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.kill()
                let log = (try? String(contentsOf: prefix.appending(path: "logs/error.log"), encoding: .utf8)) ?? ""
                throw TestFailure("nginx in \(namespace.name) did not start listening: \(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether a TCP connection to `address`:`port` succeeds now.
    private static func accepts(address: String, port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, address, &sin.sin_addr) == 1 else { return false }
        return withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Writes the configuration for `port` and starts nginx (through `launcher`, a command
    /// prefix such as `ip netns exec NAME`), listening on `address`.
    private static func start(root: URL, bytesPerSecond: Int, prefix: URL, port: Int,
                              address: String = "127.0.0.1", launcher: [String] = []) throws -> ChildProcess {
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(prefix.path)/nginx.pid;
            error_log \(prefix.path)/logs/error.log warn;
            events { worker_connections 256; }
            http {
                \(NginxAccessLog.format(named: "bytes"))
                access_log \(prefix.path)/logs/access.log bytes;
                client_body_temp_path \(prefix.path)/body;
                proxy_temp_path \(prefix.path)/proxy;
                fastcgi_temp_path \(prefix.path)/fastcgi;
                uwsgi_temp_path \(prefix.path)/uwsgi;
                scgi_temp_path \(prefix.path)/scgi;
                server {
                    listen \(address):\(port);
                    root \(root.path);
                    limit_rate \(bytesPerSecond);
                }
            }
            """
        let configURL = prefix.appending(path: "nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        do {
            let command = launcher + ["/usr/sbin/nginx", "-p", prefix.path, "-c", configURL.path]
            return try ChildProcess(command[0], Array(command.dropFirst()))
        } catch {
            throw TestFailure("cannot run /usr/sbin/nginx (Debian package nginx): \(error)")
        }
    }

    /// Stops nginx (SIGKILL) and reaps it. Its access log is written line by line as each
    /// response ends, so nothing is lost.
    public func stop() { process.kill() }

    /// The access log, one line per response: `uri status body_bytes_sent "range"`.
    public func accessLog() throws -> [String] {
        try NginxAccessLog.lines(of: prefix.appending(path: "logs/access.log"))
    }

    /// Body bytes sent over all responses so far (complete after ``stop()``).
    public func bodyBytesSent() throws -> Int64 {
        NginxAccessLog.bodyBytes(try accessLog())
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: prefix)
    }
}
