import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// OpenSSH's sshd on a free 127.0.0.1 port, with throwaway host key, client keys, authorized_keys
/// and known_hosts in a temporary folder. Started by the tests that need it, stopped at the end.
final class SSHServer: @unchecked Sendable {
    struct Options {
        var password = false
        var keyboardInteractive = false
        var hostKeyType = "ed25519"
    }

    /// The local user the password and keyboard-interactive tests log in as; created by
    /// `scripts/create-sftp-test-user.sh`.
    static let testUser = "fdl-sftp-test"
    static let testPassword = "fdl-sftp-test-password"

    let folder: URL
    /// Files to serve live here (world-readable folder).
    let data: URL
    let port: Int
    let clientKey: String
    let encryptedClientKey: String
    static let encryptedKeyPassphrase = "correct horse battery staple"
    let knownHosts: String
    let hostKey: String
    let user: String
    private let process: ChildProcess
    private var stopped = false
    private let log: URL

    init(_ options: Options = Options()) throws {
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("fdl-sshd-\(UUID().uuidString)")
        data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        chmod(folder.path, 0o755)
        chmod(data.path, 0o755)
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        user = String(cString: getpwuid(geteuid())!.pointee.pw_name)

        hostKey = folder.appendingPathComponent("host_key").path
        clientKey = folder.appendingPathComponent("id_ed25519").path
        encryptedClientKey = folder.appendingPathComponent("id_ecdsa_encrypted").path
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-t", options.hostKeyType, "-N", "", "-f", hostKey])
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", clientKey])
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-t", "ecdsa", "-N", Self.encryptedKeyPassphrase, "-f", encryptedClientKey])
        let authorized = try String(contentsOfFile: clientKey + ".pub", encoding: .utf8)
            + String(contentsOfFile: encryptedClientKey + ".pub", encoding: .utf8)
        try authorized.write(toFile: folder.appendingPathComponent("authorized_keys").path, atomically: true, encoding: .utf8)

        knownHosts = folder.appendingPathComponent("known_hosts").path
        log = folder.appendingPathComponent("sshd.log")
        let (folder, hostKey, knownHosts, log) = (folder, hostKey, knownHosts, log)
        let launched = try LoopbackLaunch.startBlocking("/usr/sbin/sshd (Debian package openssh-server)") { ports in
            let process = try Self.start(port: ports[0], options: options, folder: folder, hostKey: hostKey,
                                         knownHosts: knownHosts, log: log)
            return (process, LoopbackLaunch.Watch(process, diagnostics: {
                "its log:\n" + ((try? String(contentsOf: log, encoding: .utf8)) ?? "")
            }))
        }
        process = launched.server
        port = launched.ports[0]
    }

    /// Writes `known_hosts` and the configuration for `port`, and starts sshd (`-D -e`).
    private static func start(port: Int, options: Options, folder: URL, hostKey: String, knownHosts: String,
                              log: URL) throws -> ChildProcess {
        try Self.knownHostsLine(port: port, publicKeyFile: hostKey + ".pub")
            .write(toFile: knownHosts, atomically: true, encoding: .utf8)

        let config = """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(hostKey)
        PidFile \(folder.path)/sshd.pid
        AuthorizedKeysFile \(folder.path)/authorized_keys
        StrictModes no
        PermitRootLogin yes
        PubkeyAuthentication yes
        PasswordAuthentication \(options.password ? "yes" : "no")
        KbdInteractiveAuthentication \(options.keyboardInteractive ? "yes" : "no")
        UsePAM \(options.password || options.keyboardInteractive ? "yes" : "no")
        MaxStartups 200
        MaxSessions 50
        LogLevel VERBOSE
        Subsystem sftp /usr/lib/openssh/sftp-server

        """
        let configFile = folder.appendingPathComponent("sshd_config").path
        try config.write(toFile: configFile, atomically: true, encoding: .utf8)
        return try ChildProcess("/usr/sbin/sshd", ["-f", configFile, "-D", "-e"], error: .file(log.path))
    }

    deinit { stop() }

    /// Stops sshd and removes the folder.
    func stop() {
        if !stopped {
            stopped = true
            killChildren()
            process.send(SIGTERM)
            _ = try? process.waitBlocking(limit: .seconds(30))
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// `sftp://[user@]127.0.0.1:port/<data>/<name>`, percent-encoded.
    func url(_ name: String, user: String? = nil, password: String? = nil) -> URL {
        var components = URLComponents()
        components.scheme = "sftp"
        components.host = "127.0.0.1"
        components.port = port
        components.user = user ?? self.user
        components.password = password
        components.path = data.appendingPathComponent(name).path
        return components.url!
    }

    /// Writes `bytes` to `data/name` and returns its path.
    @discardableResult
    func serve(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws -> String {
        let path = data.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return path
    }

    /// The sshd log so far.
    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// SSH connections sshd accepted so far (not counting the start-up probe, which closes before
    /// the SSH banner exchange). sshd -e ends its lines with CR LF.
    var connectionCount: Int {
        let lines = logText.split(whereSeparator: \.isNewline)
        let connections = lines.filter { $0.contains("Connection from 127.0.0.1") }.count
        let probes = lines.filter { $0.contains("kex_exchange_identification: Connection closed by remote host") }.count
        return connections - probes
    }

    /// Kills the per-connection sshd processes (children of the listener): every open session
    /// breaks, the listener keeps accepting.
    func killChildren() {
        signalChildren(SIGKILL)
    }

    /// Sends `signal` to the per-connection sshd processes (SIGSTOP freezes every open session,
    /// SIGCONT lets it go on).
    func signalChildren(_ signal: Int32) {
        for pid in Self.children(of: process.processIdentifier) {
            for grandchild in Self.children(of: pid) { kill(grandchild, signal) }
            kill(pid, signal)
        }
    }

    /// Replaces the host key with a new one of the same type and restarts nothing: sshd reads the
    /// key per connection (it re-executes itself for each).
    func changeHostKey() throws {
        try FileManager.default.removeItem(atPath: hostKey)
        try FileManager.default.removeItem(atPath: hostKey + ".pub")
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey])
    }

    /// A known_hosts line for this server's current host key: `[127.0.0.1]:port type base64`.
    static func knownHostsLine(port: Int, publicKeyFile: String) throws -> String {
        let parts = try String(contentsOfFile: publicKeyFile, encoding: .utf8).split(separator: " ")
        return "[127.0.0.1]:\(port) \(parts[0]) \(parts[1])\n"
    }

    /// The current host key's line, with the host name hashed as `ssh-keygen -H` does.
    func hashedKnownHostsLine() throws -> String {
        let file = folder.appendingPathComponent("hashed_known_hosts").path
        try Self.knownHostsLine(port: port, publicKeyFile: hostKey + ".pub").write(toFile: file, atomically: true, encoding: .utf8)
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-H", "-f", file])
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    static func children(of parent: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent
        }
    }

    /// Fails loudly when the password test user is missing.
    static func requireTestUser() throws {
        guard getpwnam(testUser) != nil else {
            throw TestFailure("the test user \(testUser) does not exist: run scripts/create-sftp-test-user.sh as root first")
        }
    }
}
