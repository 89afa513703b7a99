import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The uid that owns the other end of a TCP connection on this machine, asked from the kernel
/// with one `sock_diag` netlink request (what `ss -e` shows): on 127.0.0.1 every local user
/// connects from the same address, and could connect from any of 127.0.0.0/8, so the uid is what
/// tells one local user from another. Unprivileged, and one round trip to the kernel.
enum LoopbackPeerUID {
    /// The owner of the socket connected from `remote` to `local` (both IPv4, as the agent's
    /// side of the connection sees them), or `nil` when the kernel does not know it (the peer
    /// is on another machine or already gone).
    static func of(local: SocketAddress?, remote: SocketAddress?) -> UInt32? {
        guard case .v4(let ours)? = local, case .v4(let theirs)? = remote else { return nil }
        let fd = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 4 /* NETLINK_SOCK_DIAG */)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var wait = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))

        // nlmsghdr (16 bytes) + inet_diag_req_v2 (56 bytes). The peer's socket has our remote
        // address as its source and our local address as its destination.
        var request = [UInt8](repeating: 0, count: 72)
        put(UInt32(72), at: 0, in: &request)              // nlmsg_len
        put(UInt16(20), at: 4, in: &request)              // SOCK_DIAG_BY_FAMILY
        put(UInt16(1), at: 6, in: &request)               // NLM_F_REQUEST
        request[16] = UInt8(AF_INET)                      // sdiag_family
        request[17] = UInt8(IPPROTO_TCP)                  // sdiag_protocol
        put(UInt32.max, at: 20, in: &request)             // idiag_states: all
        put(theirs.address.sin_port, at: 24, in: &request)       // id.idiag_sport (network order)
        put(ours.address.sin_port, at: 26, in: &request)         // id.idiag_dport
        put(theirs.address.sin_addr.s_addr, at: 28, in: &request) // id.idiag_src[0]
        put(ours.address.sin_addr.s_addr, at: 44, in: &request)   // id.idiag_dst[0]
        put(UInt32.max, at: 64, in: &request)             // id.idiag_cookie: INET_DIAG_NOCOOKIE
        put(UInt32.max, at: 68, in: &request)
        guard send(fd, request, request.count, 0) == request.count else { return nil }

        // nlmsghdr + inet_diag_msg: family, state, timer, retrans (4), id (48), expires, rqueue,
        // wqueue (12), then idiag_uid at 16 + 64.
        var answer = [UInt8](repeating: 0, count: 1024)
        let received = recv(fd, &answer, answer.count, 0)
        guard received >= 84, read(UInt16.self, at: 4, in: answer) == 20 else { return nil }
        return read(UInt32.self, at: 80, in: answer)
    }

    private static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { raw in
            for (index, byte) in raw.enumerated() { bytes[offset + index] = byte }
        }
    }

    private static func read<T: FixedWidthInteger>(_ type: T.Type, at offset: Int, in bytes: [UInt8]) -> T {
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { raw in
            for index in 0..<raw.count { raw[index] = bytes[offset + index] }
        }
        return value
    }
}
