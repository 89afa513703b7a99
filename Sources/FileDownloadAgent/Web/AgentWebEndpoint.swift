import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the agent's web page is: the TCP port on 127.0.0.1 it listens on and the token that
/// opens it. The running agent writes the port to `STATE/agent.port` (mode 0600) and removes the
/// file when it stops; `fdl ui` reads both files with ``running(stateDirectory:)``.
public struct AgentWebEndpoint: Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    public let token: AgentToken

    public init(port: Int, token: AgentToken) {
        self.port = port
        self.token = token
    }

    /// The page without the token: `http://127.0.0.1:PORT/ui/`. Opened like this it shows no
    /// data: it has no token to send.
    public var pageURL: String { "http://127.0.0.1:\(port)/ui/" }

    /// The URL that opens the page logged in: ``pageURL`` with the token in its fragment,
    /// `http://127.0.0.1:PORT/ui/#token=TOKEN`.
    ///
    /// A browser never sends a fragment to a server (nor in a `Referer`), so the token reaches
    /// neither the agent's nor any other server's logs. The page's script reads it, removes it
    /// from the address bar and the history entry (`history.replaceState`), keeps it in the tab's
    /// `sessionStorage` and sends it as `Authorization: Bearer TOKEN` with each of its requests.
    /// Print it only to the user who asked for it: anyone who has it can drive the agent.
    public var loginURL: String { "http://127.0.0.1:\(port)/ui/#token=\(token.value)" }

    /// The port file of a state directory: `STATE/agent.port`.
    public static func portPath(in stateDirectory: String) -> String { stateDirectory + "/agent.port" }

    /// The endpoint of the agent that runs on `stateDirectory` with a TCP listener.
    ///
    /// Reads `STATE/agent.port` and `STATE/agent.token`, then checks that something accepts
    /// connections on 127.0.0.1 at that port.
    ///
    /// - Throws: ``AgentStartError`` saying which of those is missing.
    public static func running(stateDirectory: String) throws -> AgentWebEndpoint {
        let portFile = portPath(in: stateDirectory)
        guard let text = try? String(contentsOfFile: portFile, encoding: .utf8),
              let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), (1...65535).contains(port) else {
            throw AgentStartError("no agent with a web page runs on \(stateDirectory) (no \(portFile)); start one with `fdl agent --tcp PORT`")
        }
        guard let token = try AgentToken.load(from: AgentToken.path(in: stateDirectory)) else {
            throw AgentStartError("the agent on \(stateDirectory) has no token file; restart it with `fdl agent --tcp PORT`")
        }
        guard isAccepting(port: port) else {
            throw AgentStartError("no agent listens on 127.0.0.1:\(port) any more; start one with `fdl agent --tcp PORT`")
        }
        return AgentWebEndpoint(port: port, token: token)
    }

    /// Writes `port` to `STATE/agent.port` (mode 0600, replaced atomically).
    static func writePort(_ port: Int, stateDirectory: String) throws {
        let path = portPath(in: stateDirectory)
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AgentStartError("cannot write \(path): \(String(cString: strerror(errno)))") }
        let bytes = Array("\(port)\n".utf8)
        let written = write(fd, bytes, bytes.count)
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw AgentStartError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether a process accepts TCP connections on 127.0.0.1:`port`.
    static func isAccepting(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }
}
