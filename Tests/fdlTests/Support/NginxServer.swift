import FileDownloadTestSupport
import Foundation

/// A real nginx on 127.0.0.1 and a free port, serving a directory the test fills.
///
/// Files under `www/` are served as they are; files under `www/slow/` at `slowRate` bytes per
/// second (nginx's `limit_rate`) unless the request has a `Range` header, so a test can interrupt
/// a first transfer in the middle, and the resumed one is quick. Files under `www/private/` need
/// HTTP Basic authentication (``basicUser``, ``basicPassword``). The access log records the
/// status, the `Range` header, the `X-Api-Key` header, the `User-Agent` and the authenticated
/// user of every request, and when it ended (`msec=`, seconds since 1970) and how long it took
/// (`request_time=`, seconds).
final class NginxServer: @unchecked Sendable {
    let directory: TemporaryDirectory
    let port: Int
    private let process: ChildProcess

    /// The directory the server serves.
    var root: URL { directory.file("www") }

    /// `http://127.0.0.1:PORT/` + `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Starts nginx (from Debian's `nginx-light` or `nginx`) and waits until it accepts connections.
    ///
    /// - Throws: a ``TestFailure`` naming the missing package or nginx's error output.
    init(slowRate: String = "512k", locations: String = "") async throws {
        guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestFailure("nginx is not installed: apt-get install -y nginx-light")
        }
        let directory = try TemporaryDirectory("nginx")
        self.directory = directory
        let prefix = directory.path
        for sub in ["www/slow", "tmp", "logs"] {
            try FileManager.default.createDirectory(atPath: "\(prefix)/\(sub)", withIntermediateDirectories: true)
        }
        do {
            let launched = try await LoopbackLaunch.start("nginx") { ports in
                let process = try Self.start(nginx, prefix: prefix, port: ports[0], slowRate: slowRate, locations: locations)
                return (process, LoopbackLaunch.Watch(process, diagnostics: {
                    "nginx said: " + ((try? String(contentsOfFile: "\(prefix)/logs/error.log", encoding: .utf8)) ?? "")
                }))
            }
            process = launched.server
            port = launched.ports[0]
        } catch {
            directory.remove()
            throw error
        }
    }

    /// Writes the configuration for `port` and starts nginx.
    /// `locations` is more of the server block (e.g. `location` blocks with `add_header`).
    private static func start(_ nginx: String, prefix: String, port: Int, slowRate: String, locations: String = "") throws -> ChildProcess {
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log warn;
            events { worker_connections 64; }
            http {
                log_format ranges '$status "$request" range="$http_range" if_range="$http_if_range" bytes=$body_bytes_sent api_key="$http_x_api_key" ua="$http_user_agent" user="$remote_user" msec=$msec request_time=$request_time';
                access_log \(prefix)/logs/access.log ranges;
                client_body_temp_path \(prefix)/tmp/body;
                proxy_temp_path \(prefix)/tmp/proxy;
                fastcgi_temp_path \(prefix)/tmp/fastcgi;
                uwsgi_temp_path \(prefix)/tmp/uwsgi;
                scgi_temp_path \(prefix)/tmp/scgi;
                default_type application/octet-stream;
                sendfile on;
                server {
                    listen 127.0.0.1:\(port);
                    root \(prefix)/www;
                    location /private/ {
                        auth_basic "fdl tests";
                        auth_basic_user_file \(prefix)/htpasswd;
                    }
                    location /slow/ {
                        limit_rate \(slowRate);
                        if ($http_range) { set $limit_rate 0; }
                    }
                    \(locations)
                }
            }
            """
        try config.write(toFile: "\(prefix)/nginx.conf", atomically: true, encoding: .utf8)
        try Self.htpasswd.write(toFile: "\(prefix)/htpasswd", atomically: true, encoding: .utf8)
        return try ChildProcess(nginx, ["-p", prefix, "-c", "\(prefix)/nginx.conf", "-e", "\(prefix)/logs/error.log"])
    }

    /// Runs `body` with a fresh nginx and output directory, and stops both afterwards.
    static func withServer(slowRate: String = "512k", locations: String = "",
                           _ body: (NginxServer, TemporaryDirectory) async throws -> Void) async throws {
        let server = try await NginxServer(slowRate: slowRate, locations: locations)
        let out = try TemporaryDirectory("fdl-out")
        defer {
            server.stop()
            out.remove()
        }
        try await body(server, out)
    }

    /// Writes `data` at `path` under the served directory and returns it.
    @discardableResult
    func serve(_ path: String, _ data: Data) throws -> Data {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return data
    }

    /// The access log lines so far.
    var accessLog: [String] {
        ((try? String(contentsOfFile: directory.path + "/logs/access.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// Stops nginx (SIGKILL; it writes its access log line by line, so nothing is lost), reaps it,
    /// and removes its directory.
    func stop() {
        process.kill()
        directory.remove()
    }
}

/// Deterministic test content: `count` bytes of a simple pattern seeded by `seed`.
func sampleBytes(_ count: Int, seed: UInt8 = 7) -> Data {
    var bytes = [UInt8](repeating: 0, count: count)
    var state = UInt32(seed) &* 2_654_435_761 &+ 1
    for i in 0..<count {
        state = state &* 1_664_525 &+ 1_013_904_223
        bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
    }
    return Data(bytes)
}
