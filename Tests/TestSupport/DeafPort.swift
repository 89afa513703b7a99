#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 where a connection is never set up, for as long as this value lives: a
/// socket listens there with room for one waiting connection, never accepts, and this value
/// fills that room itself; the kernel then drops every further SYN, so a client's `connect`
/// waits until its own connect timeout (a host that is off, or a firewall that drops packets,
/// with a route to it).
public final class DeafPort: Sendable {
    public let port: Int
    private let listener: Int32
    private let filler: Int32

    public init() throws {
        let (fd, port) = try LoopbackPort.bindAny()
        guard listen(fd, 0) == 0 else {
            let e = errno
            close(fd)
            throw TestFailure("listen() failed: errno \(e)")
        }
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard filler >= 0, connected else {
            let e = errno
            if filler >= 0 { close(filler) }
            close(fd)
            throw TestFailure("cannot fill the accept queue of port \(port): errno \(e)")
        }
        (self.listener, self.filler, self.port) = (fd, filler, port)
    }

    deinit {
        close(filler)
        close(listener)
    }
}
