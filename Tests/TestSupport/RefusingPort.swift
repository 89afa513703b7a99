#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that refuses connections for as long as this value lives: a socket is bound
/// to it and never listens, so no other process can take the port meanwhile (a port that was merely
/// free a moment ago could be taken by a server of another test, and then accept).
public final class RefusingPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        (fd, port) = try LoopbackPort.bindAny()
    }

    deinit { close(fd) }
}
