import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// nginx from Debian serving `root` on 127.0.0.1 over HTTP and HTTPS (a throwaway CA's
/// certificate), with its prefix, logs and pid in a temporary directory.
final class NginxServer: Sendable {
    let httpPort: Int
    let httpsPort: Int
    /// HTTPS that requires a client certificate signed by the test CA.
    let mutualTLSPort: Int
    private let process: ServerProcess

    init(root: URL, certificates: TestCertificates, prefix: URL) throws {
        let httpPort = try LoopbackPort.free()
        var httpsPort = try LoopbackPort.free()
        while httpsPort == httpPort { httpsPort = try LoopbackPort.free() }
        var mutualTLSPort = try LoopbackPort.free()
        while mutualTLSPort == httpPort || mutualTLSPort == httpsPort { mutualTLSPort = try LoopbackPort.free() }
        let p = prefix.path
        let user = geteuid() == 0 ? "user root;" : ""
        let config = """
        \(user)
        daemon off;
        worker_processes 1;
        pid \(p)/nginx.pid;
        error_log \(p)/error.log warn;
        events { worker_connections 1024; }
        http {
            access_log off;
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
            }
            server {
                listen 127.0.0.1:\(httpsPort) ssl;
                ssl_certificate \(certificates.serverCertificate.path);
                ssl_certificate_key \(certificates.serverKey.path);
                root \(root.path);
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
        let process = try ServerProcess("/usr/sbin/nginx", ["-c", file.path, "-p", p, "-e", "\(p)/error.log"],
                                        stderrFile: prefix.appendingPathComponent("nginx.stderr"))
        try process.waitForPort(httpPort)
        try process.waitForPort(httpsPort)
        try process.waitForPort(mutualTLSPort)
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.mutualTLSPort = mutualTLSPort
        self.process = process
    }

    func url(_ path: String, https: Bool = false) -> URL {
        URL(string: https ? "https://127.0.0.1:\(httpsPort)/\(path)" : "http://127.0.0.1:\(httpPort)/\(path)")!
    }

    func stop() { process.stop() }
}
