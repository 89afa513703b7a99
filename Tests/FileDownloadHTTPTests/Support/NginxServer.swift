import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// nginx from Debian serving `root` on 127.0.0.1 over HTTP and HTTPS (a throwaway CA's
/// certificate), with its prefix, logs and pid in a temporary directory. `/no-ranges/PATH` serves
/// `PATH` too, ignoring `Range` (`max_ranges 0`). Its access log (``accessLog()``) has one line
/// per response: `uri status body_bytes_sent "range"`.
final class NginxServer: Sendable {
    let httpPort: Int
    let httpsPort: Int
    /// HTTPS that requires a client certificate signed by the test CA.
    let mutualTLSPort: Int
    private let process: ChildProcess
    private let prefix: URL

    init(root: URL, certificates: TestCertificates, prefix: URL) throws {
        let (process, ports) = try LoopbackLaunch.startBlocking("nginx", ports: 3) { ports in
            let process = try Self.start(root: root, certificates: certificates, prefix: prefix, ports: ports)
            return (process, LoopbackLaunch.Watch(process, diagnostics: {
                ((try? String(contentsOfFile: prefix.path + "/nginx.stderr", encoding: .utf8)) ?? "")
                    + ((try? String(contentsOfFile: prefix.path + "/error.log", encoding: .utf8)) ?? "")
            }))
        }
        self.httpPort = ports[0]
        self.httpsPort = ports[1]
        self.mutualTLSPort = ports[2]
        self.process = process
        self.prefix = prefix
    }

    /// The access log, one line per response: `uri status body_bytes_sent "range"`.
    func accessLog() throws -> [String] {
        try NginxAccessLog.lines(of: prefix.appendingPathComponent("access.log"))
    }

    /// Writes the configuration for `ports` (HTTP, HTTPS, mutual TLS) and starts nginx.
    private static func start(root: URL, certificates: TestCertificates, prefix: URL, ports: [Int]) throws -> ChildProcess {
        let (httpPort, httpsPort, mutualTLSPort) = (ports[0], ports[1], ports[2])
        let p = prefix.path
        let user = geteuid() == 0 ? "user root;" : ""
        // The same files under /no-ranges/, from a server that ignores Range (200, whole body).
        let noRanges = "location /no-ranges/ { alias \(root.path)/; max_ranges 0; }"
        let config = """
        \(user)
        daemon off;
        worker_processes 1;
        pid \(p)/nginx.pid;
        error_log \(p)/error.log warn;
        events { worker_connections 1024; }
        http {
            \(NginxAccessLog.format(named: "ranges"))
            access_log \(p)/access.log ranges;
            client_body_temp_path \(p)/client;
            proxy_temp_path \(p)/proxy;
            fastcgi_temp_path \(p)/fastcgi;
            uwsgi_temp_path \(p)/uwsgi;
            scgi_temp_path \(p)/scgi;
            default_type application/octet-stream;
            sendfile on;
            server {
                listen 127.0.0.1:\(httpPort);
                root \(root.path);
                \(noRanges)
            }
            server {
                listen 127.0.0.1:\(httpsPort) ssl;
                ssl_certificate \(certificates.serverCertificate.path);
                ssl_certificate_key \(certificates.serverKey.path);
                root \(root.path);
                \(noRanges)
            }
            server {
                listen 127.0.0.1:\(mutualTLSPort) ssl;
                ssl_certificate \(certificates.serverCertificate.path);
                ssl_certificate_key \(certificates.serverKey.path);
                ssl_client_certificate \(certificates.caCertificate.path);
                ssl_verify_client on;
                root \(root.path);
            }
        }
        """
        let file = prefix.appendingPathComponent("nginx.conf")
        try config.write(to: file, atomically: true, encoding: .utf8)
        return try ChildProcess("/usr/sbin/nginx", ["-c", file.path, "-p", p, "-e", "\(p)/error.log"],
                                error: .file(p + "/nginx.stderr"))
    }

    func url(_ path: String, https: Bool = false) -> URL {
        URL(string: https ? "https://127.0.0.1:\(httpsPort)/\(path)" : "http://127.0.0.1:\(httpPort)/\(path)")!
    }

    /// Stops nginx with SIGTERM (its master stops its worker) and reaps it, killing it when it
    /// takes longer than 30 s.
    func stop() {
        process.send(SIGTERM)
        _ = try? process.waitBlocking(limit: .seconds(30))
    }
}
