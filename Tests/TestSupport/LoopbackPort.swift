#if canImport(Glibc)
import Glibc
#endif

/// Loopback TCP ports for the servers the tests start (nginx, sshd, the fault server), shared by
/// every test target.
public enum LoopbackPort {
    /// A port on 127.0.0.1 that was free a moment ago: the kernel picked it for a socket bound to
    /// port 0, then the socket was closed.
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw TestFailure("cannot bind a port on 127.0.0.1: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Waits until 127.0.0.1:`port` accepts a TCP connection, polling every 20 ms for at most
    /// `limit`: the only bounded poll the tests use, for a server process they started.
    ///
    /// - Parameters:
    ///   - server: the server's name for the error message.
    ///   - isRunning: whether the server process still runs; when it returns `false` the wait
    ///     ends at once instead of at the deadline.
    ///   - diagnostics: what to add to the error message (the server's log), read only on failure.
    /// - Throws: a ``TestFailure`` when the server exited or did not accept within `limit`.
    public static func waitUntilAccepting(
        _ port: Int, server: String, limit: Duration = .seconds(10),
        isRunning: () -> Bool = { true }, diagnostics: () -> String = { "" }
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while try !isAccepting(port, server: server, limit: limit, deadline: deadline, isRunning, diagnostics) {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// ``waitUntilAccepting(_:server:limit:isRunning:diagnostics:)`` for a caller that cannot
    /// suspend (a synchronous initializer): it blocks its thread between the polls.
    public static func waitUntilAccepting(
        _ port: Int, server: String, limit: Duration = .seconds(10),
        isRunning: () -> Bool = { true }, diagnostics: () -> String = { "" }
    ) throws {
        let deadline = ContinuousClock.now + limit
        while try !isAccepting(port, server: server, limit: limit, deadline: deadline, isRunning, diagnostics) {
            usleep(20_000)
        }
    }

    /// One poll: `true` when the port accepts, `false` to poll again, a ``TestFailure`` when the
    /// server exited or `deadline` passed.
    private static func isAccepting(
        _ port: Int, server: String, limit: Duration, deadline: ContinuousClock.Instant,
        _ isRunning: () -> Bool, _ diagnostics: () -> String
    ) throws -> Bool {
        if accepts(port) { return true }
        let problem: String
        if !isRunning() {
            problem = "\(server) exited before it accepted connections on 127.0.0.1:\(port)"
        } else if ContinuousClock.now >= deadline {
            problem = "\(server) did not accept connections on 127.0.0.1:\(port) within \(limit)"
        } else {
            return false
        }
        let details = diagnostics()
        throw TestFailure(details.isEmpty ? problem : "\(problem); \(details)")
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
