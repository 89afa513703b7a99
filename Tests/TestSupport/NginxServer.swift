public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// nginx from Debian on 127.0.0.1 and free ports, serving a directory: the one nginx fixture of
/// every test target, started by the test and stopped by ``stop()`` (or when the test lets go of it).
///
/// Its files, configuration and logs live in ``directory``. Every server it starts serves
/// ``root`` as it is, at ``init(root:bytesPerSecond:)``'s rate per response (none when 0), and also:
/// - `/slow/PATH` at `slowRate` bytes per second (nginx's `limit_rate`) unless the request has a
///   `Range` header, so a test can interrupt a first transfer in the middle and the resumed one is quick;
/// - `/private/PATH` only with HTTP Basic authentication (``basicUser``, ``basicPassword``);
/// - `/no-ranges/PATH`, the file at `PATH`, ignoring `Range` (`max_ranges 0`: 200 and the whole body).
///
/// Two logs record each response as it ends: ``accessLog`` (status, request, `Range`, `If-Range`,
/// body bytes, `X-Api-Key`, `User-Agent`, the authenticated user, `msec=` and `request_time=`) and
/// ``transferLog()`` (`uri status body_bytes_sent "range"`, see `NginxAccessLog`).
public final class NginxServer: Sendable {
    /// Configuration, logs and nginx's temporary files (and, for ``init(slowRate:locations:)``, the served `www/`).
    public let directory: TemporaryDirectory
    /// The directory the server serves.
    public let root: URL
    /// The address it listens on: 127.0.0.1, or a network namespace's address.
    public let host: String
    /// The HTTP port.
    public let port: Int
    /// The HTTPS port, when started with certificates.
    public let httpsPort: Int
    /// HTTPS that requires a client certificate signed by the test CA, when started with certificates.
    public let mutualTLSPort: Int
    private let process: ChildProcess

    /// `http://HOST:PORT/`.
    public var baseURL: URL { URL(string: "http://\(host):\(port)/")! }

    private init(directory: TemporaryDirectory, root: URL, host: String, ports: [Int], process: ChildProcess) {
        self.directory = directory
        self.root = root
        self.host = host
        self.port = ports[0]
        self.httpsPort = ports.count > 1 ? ports[1] : 0
        self.mutualTLSPort = ports.count > 2 ? ports[2] : 0
        self.process = process
    }

    /// Starts nginx serving a new directory `www/` of ``directory`` (fill it with ``serve(_:_:)``),
    /// `/slow/` at `slowRate`; `locations` is more of the server block (e.g. `location` blocks
    /// with `add_header`). Waits until nginx itself listens (`LoopbackLaunch`).
    ///
    /// - Throws: a `TestFailure` naming the missing package or nginx's error output.
    public convenience init(slowRate: String = "512k", locations: String = "") async throws {
        let directory = try TemporaryDirectory("nginx")
        let root = directory.file("www")
        do {
            try FileManager.default.createDirectory(at: root.appending(path: "slow"), withIntermediateDirectories: true)
            let settings = Settings(root: root, slowRate: slowRate, locations: locations)
            let launched = try await LoopbackLaunch.start("nginx (Debian package nginx)") { ports in
                try Self.launch(settings, directory: directory, ports: ports)
            }
            self.init(directory: directory, root: root, host: "127.0.0.1", ports: launched.ports, process: launched.server)
        } catch {
            directory.remove()
            throw error
        }
    }

    /// Starts nginx serving `root`, each response limited to `bytesPerSecond` (0: no limit). Waits
    /// until nginx itself listens (`LoopbackLaunch`); throws with nginx's error log when it does not.
    public convenience init(root: URL, bytesPerSecond: Int) async throws {
        let directory = try TemporaryDirectory("nginx")
        do {
            let settings = Settings(root: root, bytesPerSecond: bytesPerSecond)
            let launched = try await LoopbackLaunch.start("nginx (Debian package nginx)") { ports in
                try Self.launch(settings, directory: directory, ports: ports)
            }
            self.init(directory: directory, root: root, host: "127.0.0.1", ports: launched.ports, process: launched.server)
        } catch {
            directory.remove()
            throw error
        }
    }

    /// Starts nginx serving `root` over HTTP, over HTTPS with `certificates`' server certificate
    /// (``httpsPort``), and over HTTPS that requires a client certificate the test CA signed
    /// (``mutualTLSPort``). Blocks until it listens on all three: for synchronous initializers.
    /// `locations` is more of the HTTP and HTTPS server blocks (e.g. a `location` that proxies).
    public convenience init(root: URL, certificates: TestCertificates, locations: String = "") throws {
        let directory = try TemporaryDirectory("nginx")
        do {
            let settings = Settings(root: root, locations: locations, certificates: certificates)
            let launched = try LoopbackLaunch.startBlocking("nginx (Debian package nginx)", ports: 3) { ports in
                try Self.launch(settings, directory: directory, ports: ports)
            }
            self.init(directory: directory, root: root, host: "127.0.0.1", ports: launched.ports, process: launched.server)
        } catch {
            directory.remove()
            throw error
        }
    }

    /// Starts nginx inside `namespace`, listening on its address at `port` (the namespace is new,
    /// so the port is free there), each response limited to `bytesPerSecond`. Waits (bounded)
    /// until it accepts connections from the host side.
    public convenience init(root: URL, bytesPerSecond: Int, in namespace: NetworkNamespace, port: Int = 8080) async throws {
        let directory = try TemporaryDirectory("nginx")
        let process: ChildProcess
        do {
            let settings = Settings(root: root, bytesPerSecond: bytesPerSecond, address: namespace.address, launcher: namespace.exec)
            process = try Self.launch(settings, directory: directory, ports: [port]).0
            let deadline = ContinuousClock.now + .seconds(20)
            while !Self.accepts(address: namespace.address, port: port) {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    process.kill()
                    throw TestFailure("nginx in \(namespace.name) did not start listening: \(Self.errorLog(directory))")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        } catch {
            directory.remove()
            throw error
        }
        self.init(directory: directory, root: root, host: namespace.address, ports: [port], process: process)
    }

    /// Runs `body` with a fresh nginx (``init(slowRate:locations:)``) and output directory, and
    /// stops and removes both afterwards.
    public static func withServer(slowRate: String = "512k", locations: String = "",
                                  _ body: (NginxServer, TemporaryDirectory) async throws -> Void) async throws {
        let server = try await NginxServer(slowRate: slowRate, locations: locations)
        let out = try TemporaryDirectory("fdl-out")
        defer {
            server.stop()
            out.remove()
        }
        try await body(server, out)
    }

    /// `http://HOST:PORT/` + `path`, as a string (the form a command line is given).
    public func url(_ path: String) -> String { "http://\(host):\(port)/\(path)" }

    /// `http://127.0.0.1:PORT/path`, or with `https`, the same file over HTTPS (``httpsPort``).
    public func fileURL(_ path: String, https: Bool = false) -> URL {
        URL(string: https ? "https://\(host):\(httpsPort)/\(path)" : "http://\(host):\(port)/\(path)")!
    }

    /// Writes `data` at `path` under ``root`` (creating directories) and returns it.
    @discardableResult
    public func serve(_ path: String, _ data: Data) throws -> Data {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return data
    }

    /// The access log lines so far (the format of the type's description).
    public var accessLog: [String] {
        ((try? String(contentsOf: directory.file("logs/access.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    /// The transfer log, one line per response: `uri status body_bytes_sent "range"` (`NginxAccessLog`).
    public func transferLog() throws -> [String] {
        try NginxAccessLog.lines(of: directory.file("logs/transfer.log"))
    }

    /// Body bytes sent over all responses so far (complete after ``stop()``).
    public func bodyBytesSent() throws -> Int64 {
        NginxAccessLog.bodyBytes(try transferLog())
    }

    /// Stops nginx (SIGKILL; it writes its logs line by line as each response ends, so nothing is
    /// lost) and reaps it. The logs stay readable until the server is released.
    public func stop() { process.kill() }

    deinit {
        process.kill()
        directory.remove()
    }

    /// What a server serves and how.
    private struct Settings: Sendable {
        var root: URL
        var bytesPerSecond = 0
        var slowRate = "512k"
        var locations = ""
        var certificates: TestCertificates?
        var address = "127.0.0.1"
        var launcher: [String] = []
    }

    /// Writes the configuration for `ports` (HTTP, then with certificates HTTPS and mutual TLS)
    /// and starts nginx, returning it and how `LoopbackLaunch` watches it.
    private static func launch(_ settings: Settings, directory: TemporaryDirectory, ports: [Int]) throws -> (ChildProcess, LoopbackLaunch.Watch) {
        guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestFailure("nginx is not installed: apt-get install -y nginx-light")
        }
        let p = directory.path
        for sub in ["tmp", "logs"] {
            try FileManager.default.createDirectory(atPath: "\(p)/\(sub)", withIntermediateDirectories: true)
        }
        let root = settings.root.path
        let served = """
                root \(root);
                limit_rate \(settings.bytesPerSecond);
                location /private/ {
                    auth_basic "fdl tests";
                    auth_basic_user_file \(p)/htpasswd;
                }
                location /slow/ {
                    limit_rate \(settings.slowRate);
                    if ($http_range) { set $limit_rate 0; }
                }
                location /no-ranges/ { alias \(root)/; max_ranges 0; }
                \(settings.locations)
            """
        var servers = """
                server {
                    listen \(settings.address):\(ports[0]);
                \(served)
                }
            """
        if let certificates = settings.certificates, ports.count == 3 {
            servers += """

                    server {
                        listen \(settings.address):\(ports[1]) ssl;
                        ssl_certificate \(certificates.serverCertificate.path);
                        ssl_certificate_key \(certificates.serverKey.path);
                    \(served)
                    }
                    server {
                        listen \(settings.address):\(ports[2]) ssl;
                        ssl_certificate \(certificates.serverCertificate.path);
                        ssl_certificate_key \(certificates.serverKey.path);
                        ssl_client_certificate \(certificates.caCertificate.path);
                        ssl_verify_client on;
                        root \(root);
                    }
                """
        }
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(p)/nginx.pid;
            error_log \(p)/logs/error.log warn;
            events { worker_connections 1024; }
            http {
                log_format requests '$status "$request" range="$http_range" if_range="$http_if_range" bytes=$body_bytes_sent api_key="$http_x_api_key" ua="$http_user_agent" user="$remote_user" msec=$msec request_time=$request_time';
                \(NginxAccessLog.format(named: "transfers"))
                access_log \(p)/logs/access.log requests;
                access_log \(p)/logs/transfer.log transfers;
                client_body_temp_path \(p)/tmp/body;
                proxy_temp_path \(p)/tmp/proxy;
                fastcgi_temp_path \(p)/tmp/fastcgi;
                uwsgi_temp_path \(p)/tmp/uwsgi;
                scgi_temp_path \(p)/tmp/scgi;
                default_type application/octet-stream;
                # With sendfile, limit_rate sends bursts of up to 2 MiB (sendfile_max_chunk) and
                # then waits: a rate per response is only smooth through output_buffers.
                sendfile \(settings.bytesPerSecond == 0 ? "on" : "off");
            \(servers)
            }
            """
        try config.write(toFile: "\(p)/nginx.conf", atomically: true, encoding: .utf8)
        try Self.htpasswd.write(toFile: "\(p)/htpasswd", atomically: true, encoding: .utf8)
        let command = settings.launcher + [nginx, "-p", p, "-c", "\(p)/nginx.conf", "-e", "\(p)/logs/error.log"]
        let process: ChildProcess
        do {
            process = try ChildProcess(command[0], Array(command.dropFirst()), error: .file("\(p)/logs/nginx.stderr"))
        } catch {
            throw TestFailure("cannot run \(nginx) (Debian package nginx): \(error)")
        }
        return (process, LoopbackLaunch.Watch(process, diagnostics: { "nginx said: " + Self.errorLog(directory) }))
    }

    /// nginx's standard error and error log so far.
    private static func errorLog(_ directory: TemporaryDirectory) -> String {
        ((try? String(contentsOf: directory.file("logs/nginx.stderr"), encoding: .utf8)) ?? "")
            + ((try? String(contentsOf: directory.file("logs/error.log"), encoding: .utf8)) ?? "")
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
}
