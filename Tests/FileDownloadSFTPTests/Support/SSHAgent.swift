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
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline else { throw TestFailure("ssh-agent did not create \(socket) within 10 s") }
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
}
