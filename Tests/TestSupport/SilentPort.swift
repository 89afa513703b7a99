#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 where connections are made and then never answered, for as long as this
/// value lives: a socket listens there and never accepts, so the kernel completes each TCP
/// handshake and takes what the client sends, and nothing ever replies (a server that hangs).
public final class SilentPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        (fd, port) = try LoopbackPort.bindAny()
        guard listen(fd, 16) == 0 else {
            let e = errno
            close(fd)
            throw TestFailure("listen() failed: errno \(e)")
        }
    }

    deinit { close(fd) }
}
