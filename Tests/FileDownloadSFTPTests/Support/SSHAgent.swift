import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// OpenSSH's ssh-agent on a socket in a temporary folder, holding the given keys. Sets
/// `SSH_AUTH_SOCK` for this process while it runs (the tests that use it run serialized).
final class SSHAgent {
    let socket: String
    private let pid: pid_t
    private let folder: URL
    private let previous: String?

    init(keys: [String]) throws {
        folder = try TemporaryDirectory("sftp-test").url
        socket = folder.appendingPathComponent("agent.sock").path
        pid = try Subprocess.spawn("/usr/bin/ssh-agent", ["-D", "-a", socket])
        // The socket file appears at bind(), before listen(): ssh-add is refused in between, so
        // wait until a connection is accepted (bounded: 10 s).
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(socket) {
            guard Date() < deadline else { throw TestFailure("ssh-agent did not accept connections on \(socket) within 10 s") }
            usleep(10_000)
        }
        previous = ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"]
        setenv("SSH_AUTH_SOCK", socket, 1)
        for key in keys { try Subprocess.run("/usr/bin/ssh-add", ["-q", key]) }
    }

    func stop() {
        if let previous { setenv("SSH_AUTH_SOCK", previous, 1) } else { unsetenv("SSH_AUTH_SOCK") }
        kill(pid, SIGTERM)
        Subprocess.wait(pid)
        try? FileManager.default.removeItem(at: folder)
    }

    /// Whether a connection to the Unix socket at `path` is accepted now.
    private static func accepts(_ path: String) -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
