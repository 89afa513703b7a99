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

    /// Writes the configuration for `port` and starts nginx.
    private static func start(root: URL, bytesPerSecond: Int, prefix: URL, port: Int) throws -> ChildProcess {
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(prefix.path)/nginx.pid;
            error_log \(prefix.path)/logs/error.log warn;
            events { worker_connections 256; }
            http {
                log_format bytes '$request_uri $status $body_bytes_sent "$http_range"';
                access_log \(prefix.path)/logs/access.log bytes;
                client_body_temp_path \(prefix.path)/body;
                proxy_temp_path \(prefix.path)/proxy;
                fastcgi_temp_path \(prefix.path)/fastcgi;
                uwsgi_temp_path \(prefix.path)/uwsgi;
                scgi_temp_path \(prefix.path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    limit_rate \(bytesPerSecond);
                }
            }
            """
        let configURL = prefix.appending(path: "nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        do {
            return try ChildProcess("/usr/sbin/nginx", ["-p", prefix.path, "-c", configURL.path])
        } catch {
            throw TestFailure("cannot run /usr/sbin/nginx (Debian package nginx): \(error)")
        }
    }

    /// Stops nginx (SIGKILL) and reaps it. Its access log is written line by line as each
    /// response ends, so nothing is lost.
    public func stop() { process.kill() }

    /// The access log, one line per response: `uri status body_bytes_sent "range"`.
    public func accessLog() throws -> [String] {
        let text = try String(contentsOf: prefix.appending(path: "logs/access.log"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    /// Body bytes sent over all responses so far (complete after ``stop()``).
    public func bodyBytesSent() throws -> Int64 {
        try accessLog().reduce(0) { sum, line in
            let fields = line.split(separator: " ")
            return sum + (fields.count > 2 ? Int64(fields[2]) ?? 0 : 0)
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: prefix)
    }
}
