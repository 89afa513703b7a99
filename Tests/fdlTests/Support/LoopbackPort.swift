import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for servers the tests start.
enum LoopbackPort {
    /// A port on 127.0.0.1 that was free a moment ago (bound to 0 and released).
    static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw TestFailure("cannot bind a loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on 127.0.0.1:`port` right now.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Polls `accepts(port)` every 50 ms for at most `limit`; throws a clear error when the server
    /// never came up (the only bounded poll the tests use: waiting for a server process).
    static func waitUntilAccepting(_ port: Int, server: String, limit: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + limit
        while !accepts(port) {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("\(server) did not accept connections on 127.0.0.1:\(port) within \(limit)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// A test set-up failure with a message that says what is wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
