import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// OpenSSH's sshd (Debian `openssh-server`) on a free 127.0.0.1 port with throwaway keys:
/// an ed25519 host key, an ed25519 client key in `authorized_keys`, and a `known_hosts` file that
/// knows the host key.
final class SSHDaemon: @unchecked Sendable {
    let directory: TemporaryDirectory
    let port: Int
    let clientKey: String
    let knownHosts: String
    let hostKey: String
    let user: String

    init() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd") else {
            throw TestFailure("sshd is not installed: apt-get install -y openssh-server")
        }
        directory = try TemporaryDirectory("sshd")
        chmod(directory.path, 0o755)
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        user = String(cString: getpwuid(geteuid())!.pointee.pw_name)
        hostKey = directory.path + "/host_key"
        clientKey = directory.path + "/id_ed25519"
        try await Self.keygen(hostKey)
        try await Self.keygen(clientKey)
        try FileManager.default.copyItem(atPath: clientKey + ".pub", toPath: directory.path + "/authorized_keys")
        knownHosts = directory.path + "/known_hosts"
        let (directory, hostKey, knownHosts) = (directory, hostKey, knownHosts)
        do {
            port = try await LoopbackLaunch.start("sshd (Debian package openssh-server)") { ports in
                let started = try await Self.start(port: ports[0], directory: directory, hostKey: hostKey,
                                                   knownHosts: knownHosts)
                let pid: @Sendable () -> Int32? = { Self.pid(in: directory) }
                return ((), LoopbackLaunch.Watch(
                    pid: pid,
                    isRunning: { started && (pid().map { kill($0, 0) == 0 } ?? true) },
                    stop: { if let pid = pid() { kill(pid, SIGKILL) } }))
            }.ports[0]
        } catch {
            directory.remove()
            throw error
        }
    }

    /// Writes `known_hosts` and the configuration for `port`, and starts sshd, which detaches: a
    /// listener that is a child of the test process keeps Foundation from reaping the test's other
    /// children. It is stopped by the pid in its PidFile.
    ///
    /// - Returns: whether sshd started (it exits at once, non-zero, when it cannot bind the port).
    private static func start(port: Int, directory: TemporaryDirectory, hostKey: String, knownHosts: String) async throws -> Bool {
        try Self.knownHostsLine(port: port, publicKey: hostKey + ".pub").write(toFile: knownHosts, atomically: true, encoding: .utf8)
        let config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(hostKey)
            PidFile \(directory.path)/sshd.pid
            AuthorizedKeysFile \(directory.path)/authorized_keys
            StrictModes no
            PermitRootLogin yes
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            Subsystem sftp /usr/lib/openssh/sftp-server

            """
        try config.write(toFile: directory.path + "/sshd_config", atomically: true, encoding: .utf8)
        return try await ChildProcess.run(["/usr/sbin/sshd", "-f", directory.path + "/sshd_config"]).status == 0
    }

    /// The pid sshd wrote in its PidFile, once it has.
    private static func pid(in directory: TemporaryDirectory) -> Int32? {
        guard let text = try? String(contentsOfFile: directory.path + "/sshd.pid", encoding: .utf8),
              let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 else { return nil }
        return pid
    }

    /// `sftp://user@127.0.0.1:port/<absolute path>`.
    func url(_ path: String) -> String { "sftp://\(user)@127.0.0.1:\(port)\(path)" }

    /// `[127.0.0.1]:port type base64` for the current host key (or another public key file).
    func knownHostsLine(publicKey: String? = nil) throws -> String {
        try Self.knownHostsLine(port: port, publicKey: publicKey ?? hostKey + ".pub")
    }

    static func knownHostsLine(port: Int, publicKey: String) throws -> String {
        let parts = try String(contentsOfFile: publicKey, encoding: .utf8).split(separator: " ")
        return "[127.0.0.1]:\(port) \(parts[0]) \(parts[1])\n"
    }

    /// Writes `data` to a file the server can serve and returns its absolute path.
    func serve(_ name: String, _ data: Data) throws -> String {
        let path = directory.path + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        return path
    }

    /// Kills the sshd listener named in its PidFile, and removes the directory.
    func stop() {
        if let pid = Self.pid(in: directory) { kill(pid, SIGKILL) }
        directory.remove()
    }

    static func keygen(_ file: String) async throws {
        guard try await ChildProcess.run(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", file]).status == 0 else { throw TestFailure("ssh-keygen failed for \(file)") }
    }
}
