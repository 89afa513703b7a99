import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw connection to a Unix socket, to send what no HTTP client sends.
final class UnixConnection: Sendable {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw TestFailure("connect \(path): errno \(errno)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw TestFailure("write: errno \(errno)") }
    }

    /// What the agent sent first (at least one byte); fails when nothing came within `seconds`
    /// or the connection was closed first.
    func readSome(seconds: Double) async throws -> String {
        let fd = fd
        return try await Task.detached {
            let deadline = ContinuousClock.now + .seconds(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while ContinuousClock.now < deadline {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&ready, 1, 100) <= 0 { continue }
                let n = read(fd, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw TestFailure("the agent closed the connection without an answer") }
                return String(decoding: buffer[..<n], as: UTF8.self)
            }
            throw TestFailure("no answer within \(seconds) s")
        }.value
    }

    /// Everything the agent sends until it closes the connection; fails when it is still open
    /// after `seconds`.
    func readUntilClosed(seconds: Double) async throws -> String {
        let fd = fd
        return try await Task.detached {
            let deadline = ContinuousClock.now + .seconds(seconds)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                guard ContinuousClock.now < deadline else {
                    throw TestFailure("the agent kept the connection open for \(seconds) s; received: \(String(decoding: received, as: UTF8.self))")
                }
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let polled = poll(&ready, 1, 100)
                if polled <= 0 { continue }
                let n = read(fd, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return String(decoding: received, as: UTF8.self) }
                received += buffer[..<n]
            }
        }.value
    }
}
