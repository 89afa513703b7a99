#if canImport(Glibc)
import Glibc
#endif

/// Loopback TCP ports for the servers the tests start, shared by every test target (see
/// ``LoopbackLaunch`` and ``RefusingPort``).
public enum LoopbackPort {
    /// A port on 127.0.0.1 that was free a moment ago: the kernel picked it for a socket bound to
    /// port 0, then the socket was closed. Another process may take it before a server binds it:
    /// start servers with ``LoopbackLaunch``, which retries on a new port.
    public static func free() throws -> Int {
        let (fd, port) = try bindAny()
        close(fd)
        return port
    }

    /// A socket bound to a port of 127.0.0.1 the kernel picked, not listening; the caller closes it.
    static func bindAny() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let e = errno
            close(fd)
            throw TestFailure("cannot bind a port on 127.0.0.1: errno \(e)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
