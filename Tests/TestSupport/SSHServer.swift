public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// OpenSSH's sshd (Debian `openssh-server`) on a free 127.0.0.1 port, with throwaway host key
/// (ed25519 unless asked), client keys (ed25519, and an ECDSA key encrypted with
/// ``encryptedKeyPassphrase``) in `authorized_keys`, and a `known_hosts` that knows the host key, in
/// a temporary folder: the one sshd fixture of every test target. Started by the tests that need
/// it, stopped by ``stop()`` or when released.
public final class SSHServer: @unchecked Sendable {
    /// What the server accepts besides public keys, and its host key's type.
    public struct Options {
        public var password = false
        public var keyboardInteractive = false
        public var hostKeyType = "ed25519"

        public init(password: Bool = false, keyboardInteractive: Bool = false, hostKeyType: String = "ed25519") {
            self.password = password
            self.keyboardInteractive = keyboardInteractive
            self.hostKeyType = hostKeyType
        }
    }

    /// The local user the password and keyboard-interactive tests log in as; created by
    /// `scripts/create-sftp-test-user.sh`.
    public static let testUser = "fdl-sftp-test"
    public static let testPassword = "fdl-sftp-test-password"

    public let folder: URL
    /// Files to serve live here (world-readable folder).
    public let data: URL
    public let port: Int
    public let clientKey: String
    public let encryptedClientKey: String
    public static let encryptedKeyPassphrase = "correct horse battery staple"
    public let knownHosts: String
    public let hostKey: String
    public let user: String
    private let process: ChildProcess
    private var stopped = false
    private let log: URL

    public init(_ options: Options = Options()) throws {
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
    public func stop() {
        if !stopped {
            stopped = true
            killChildren()
            process.send(SIGTERM)
            _ = try? process.waitBlocking(limit: .seconds(30))
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// `sftp://[user@]127.0.0.1:port/<data>/<name>`, percent-encoded.
    public func url(_ name: String, user: String? = nil, password: String? = nil) -> URL {
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
    public func serve(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws -> String {
        let path = data.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return path
    }

    /// The sshd log so far.
    public var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// SSH connections sshd accepted so far (not counting the start-up probe, which closes before
    /// the SSH banner exchange). sshd -e ends its lines with CR LF.
    public var connectionCount: Int {
        let lines = logText.split(whereSeparator: \.isNewline)
        let connections = lines.filter { $0.contains("Connection from 127.0.0.1") }.count
        let probes = lines.filter { $0.contains("kex_exchange_identification: Connection closed by remote host") }.count
        return connections - probes
    }

    /// Kills the per-connection sshd processes (children of the listener): every open session
    /// breaks, the listener keeps accepting.
    public func killChildren() {
        signalChildren(SIGKILL)
    }

    /// Sends `signal` to the per-connection sshd processes (SIGSTOP freezes every open session,
    /// SIGCONT lets it go on).
    public func signalChildren(_ signal: Int32) {
        for pid in Self.children(of: process.processIdentifier) {
            for grandchild in Self.children(of: pid) { kill(grandchild, signal) }
            kill(pid, signal)
        }
    }

    /// Replaces the host key with a new one of the same type and restarts nothing: sshd reads the
    /// key per connection (it re-executes itself for each).
    public func changeHostKey() throws {
        try FileManager.default.removeItem(atPath: hostKey)
        try FileManager.default.removeItem(atPath: hostKey + ".pub")
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey])
    }

    /// `sftp://user@127.0.0.1:port` + `path` (an absolute path) as a string, the form a command line is given.
    public func address(_ path: String) -> String { "sftp://\(user)@127.0.0.1:\(port)\(path)" }

    /// Writes `data` to `data/name` (world-readable) and returns its absolute path.
    @discardableResult
    public func serve(_ name: String, _ data: Data) throws -> String {
        try serve(name, [UInt8](data))
    }

    /// `[127.0.0.1]:port type base64` for the current host key, or for another public key file.
    public func knownHostsLine(publicKey: String? = nil) throws -> String {
        try Self.knownHostsLine(port: port, publicKeyFile: publicKey ?? hostKey + ".pub")
    }

    /// Makes a new ed25519 key pair without a passphrase at `file` and `file.pub`.
    public static func keygen(_ file: String) async throws {
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", file])
    }

    /// A known_hosts line for this server's current host key: `[127.0.0.1]:port type base64`.
    public static func knownHostsLine(port: Int, publicKeyFile: String) throws -> String {
        let parts = try String(contentsOfFile: publicKeyFile, encoding: .utf8).split(separator: " ")
        return "[127.0.0.1]:\(port) \(parts[0]) \(parts[1])\n"
    }

    /// The current host key's line, with the host name hashed as `ssh-keygen -H` does.
    public func hashedKnownHostsLine() throws -> String {
        let file = folder.appendingPathComponent("hashed_known_hosts").path
        try Self.knownHostsLine(port: port, publicKeyFile: hostKey + ".pub").write(toFile: file, atomically: true, encoding: .utf8)
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-H", "-f", file])
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    public static func children(of parent: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent
        }
    }

    /// Fails loudly when the password test user is missing.
    public static func requireTestUser() throws {
        guard getpwnam(testUser) != nil else {
            throw TestFailure("the test user \(testUser) does not exist: run scripts/create-sftp-test-user.sh as root first")
        }
    }
}
