public import Foundation

/// vsftpd (Debian package `vsftpd`) serving a temporary directory to anonymous logins on
/// 127.0.0.1, started on a free port (a new one when the port was taken) and stopped by ``stop()``
/// or when released.
///
/// Its configuration lives in its own temporary directory: standalone (`listen=YES`,
/// `background=NO`), passive data ports from the system's ephemeral range, the served directory as
/// the anonymous root (owned by root and not writable: vsftpd refuses a writable chroot), every
/// command and reply logged (``protocolLog``). Local logins are enabled, so a wrong user and password
/// gets vsftpd's `530 Login incorrect.`. vsftpd needs root (it chroots); the tests run as root.
public final class VsftpdServer: Sendable {
    /// How the server speaks TLS.
    public enum TLS: Sendable {
        /// Plain FTP.
        case none
        /// `AUTH TLS` on the plain port, required for logins and data (explicit FTPS).
        case explicit(TestCertificates)
        /// TLS from the first byte (implicit FTPS).
        case implicit(TestCertificates)
    }

    public let directory: TemporaryDirectory
    /// The directory served as `/`.
    public let root: URL
    public let port: Int
    private let process: ChildProcess

    /// Starts a server; `deniedCommands` are refused with `550 Permission denied.` (vsftpd's
    /// `cmds_denied`), e.g. `["MDTM"]` for a server without modification times; `passive: false`
    /// refuses `PASV` and `EPSV` (`pasv_enable=NO`), so only active mode gets data.
    public init(tls: TLS = .none, deniedCommands: [String] = [], passive: Bool = true) throws {
        let directory = try TemporaryDirectory("vsftpd")
        let root = directory.file("root")
        do {
            for sub in ["root", "empty"] {
                try FileManager.default.createDirectory(at: directory.file(sub), withIntermediateDirectories: true)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path(sub))
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            let launched = try LoopbackLaunch.startBlocking("vsftpd (Debian package vsftpd)") { ports in
                try Self.launch(tls: tls, deniedCommands: deniedCommands, passive: passive, directory: directory, port: ports[0])
            }
            self.directory = directory
            self.root = root
            self.port = launched.ports[0]
            self.process = launched.server
        } catch {
            directory.remove()
            throw error
        }
    }

    /// The `ftp://` (or, with implicit TLS, `ftps://`) URL of `path` on this server.
    public func url(_ path: String, scheme: String = "ftp", user: String? = nil) -> URL {
        URL(string: "\(scheme)://\(user.map { "\($0)@" } ?? "")127.0.0.1:\(port)/\(path)")!
    }

    /// Writes `data` as `path` under the served root, readable by everyone.
    @discardableResult
    public func serve(_ path: String, _ data: Data, modified: Date? = nil) throws -> Data {
        let file = root.appending(path: path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        var attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o644]
        if let modified { attributes[.modificationDate] = modified }
        try FileManager.default.setAttributes(attributes, ofItemAtPath: file.path)
        return data
    }

    /// The FTP commands the server received, in order (`REST 1234`, `RETR data.bin`, ...).
    public var commands: [String] {
        let log = (try? String(contentsOf: directory.file("vsftpd.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "FTP command: Client \"127.0.0.1\", \"") else { return nil }
            return String(line[range.upperBound...].dropLast())
        }
    }

    public func stop() { process.kill() }

    deinit {
        process.kill()
        directory.remove()
    }

    private static func launch(
        tls: TLS, deniedCommands: [String], passive: Bool, directory: TemporaryDirectory, port: Int
    ) throws -> (ChildProcess, LoopbackLaunch.Watch) {
        let vsftpd = "/usr/sbin/vsftpd"
        guard FileManager.default.isExecutableFile(atPath: vsftpd) else {
            throw TestFailure("vsftpd is not installed: apt-get install -y vsftpd")
        }
        var lines = [
            "listen=YES", "listen_ipv6=NO", "listen_address=127.0.0.1", "listen_port=\(port)", "background=NO",
            "anonymous_enable=YES", "no_anon_password=YES", "local_enable=YES", "write_enable=NO",
            "anon_root=\(directory.path("root"))", "secure_chroot_dir=\(directory.path("empty"))",
            "pasv_enable=\(passive ? "YES" : "NO")", "pasv_address=127.0.0.1", "port_enable=YES", "connect_from_port_20=NO",
            "xferlog_enable=YES", "dual_log_enable=YES", "log_ftp_protocol=YES",
            "vsftpd_log_file=\(directory.path("vsftpd.log"))", "xferlog_file=\(directory.path("xfer.log"))",
            "seccomp_sandbox=NO", "pam_service_name=vsftpd", "max_per_ip=0",
        ]
        switch tls {
        case .none:
            break
        case .explicit(let certificates), .implicit(let certificates):
            lines += [
                "ssl_enable=YES", "allow_anon_ssl=YES", "force_anon_logins_ssl=YES", "force_anon_data_ssl=YES",
                "require_ssl_reuse=NO", "ssl_ciphers=HIGH",
                "rsa_cert_file=\(certificates.serverCertificate.path)", "rsa_private_key_file=\(certificates.serverKey.path)",
            ]
            if case .implicit = tls { lines.append("implicit_ssl=YES") }
        }
        if !deniedCommands.isEmpty { lines.append("cmds_denied=\(deniedCommands.joined(separator: ","))") }
        let config = directory.file("vsftpd.conf")
        try (lines.joined(separator: "\n") + "\n").write(to: config, atomically: true, encoding: .utf8)
        // vsftpd refuses a configuration file that root does not own.
        let child = try ChildProcess(vsftpd, [config.path], error: .file(directory.path("stderr.log")))
        return (child, LoopbackLaunch.Watch(child, diagnostics: {
            (try? String(contentsOf: directory.file("stderr.log"), encoding: .utf8)) ?? ""
        }))
    }
}
