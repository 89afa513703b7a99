import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// OpenSSH's ssh-agent on a socket in a temporary folder, holding the given keys. Sets
/// `SSH_AUTH_SOCK` for this process while it runs (the tests that use it run serialized).
final class SSHAgent {
    let socket: String
    private let agent: ChildProcess
    private let folder: URL
    private let previous: String?

    init(keys: [String]) throws {
        folder = try TemporaryDirectory("sftp-test").url
        socket = folder.appendingPathComponent("agent.sock").path
        agent = try ChildProcess("/usr/bin/ssh-agent", ["-D", "-a", socket])
        previous = ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"]
        setenv("SSH_AUTH_SOCK", socket, 1)
        // The socket file appears at bind(), before listen(): ssh-add is refused in between, so
        // wait until `ssh-add -l` reaches the agent (it exits with 2 when it cannot; bounded: 10 s).
        let deadline = ContinuousClock.now + .seconds(10)
        while try ChildProcess.runBlocking(["/usr/bin/ssh-add", "-l"], limit: .seconds(10)).status == 2 {
            guard ContinuousClock.now < deadline else {
                stop()
                throw TestFailure("ssh-agent did not accept connections on \(socket) within 10 s")
            }
            usleep(20_000)
        }
        for key in keys { try ChildProcess.runChecked(["/usr/bin/ssh-add", "-q", key]) }
    }

    func stop() {
        if let previous { setenv("SSH_AUTH_SOCK", previous, 1) } else { unsetenv("SSH_AUTH_SOCK") }
        agent.send(SIGTERM)
        _ = try? agent.waitBlocking(limit: .seconds(30))
        try? FileManager.default.removeItem(at: folder)
    }
}
