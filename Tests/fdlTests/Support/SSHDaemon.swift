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
    private let process: Process

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
        port = try LoopbackPort.free()
        knownHosts = directory.path + "/known_hosts"
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
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/sshd")
        process.arguments = ["-f", directory.path + "/sshd_config", "-D", "-e"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        _ = try process.start()
        do {
            try await LoopbackPort.waitUntilAccepting(port, server: "sshd")
        } catch {
            stop()
            throw error
        }
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

    /// Kills sshd (SIGKILL: a child of the test process may have SIGTERM blocked) without waiting;
    /// Foundation reaps it.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        directory.remove()
    }

    static func keygen(_ file: String) async throws {
        let keygen = Process()
        keygen.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-keygen")
        keygen.arguments = ["-q", "-t", "ed25519", "-N", "", "-f", file]
        guard try await keygen.runToEnd() == 0 else { throw TestFailure("ssh-keygen failed for \(file)") }
    }
}
