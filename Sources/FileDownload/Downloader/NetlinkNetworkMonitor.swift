import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The Linux kernel's word on network changes: a netlink route socket (`NETLINK_ROUTE`) joined to
/// the groups of links, IPv4 and IPv6 addresses and routes. Every message the kernel sends there
/// (a link up or down, an address added or removed, a route added or removed) is one change.
///
/// Each ``changes()`` opens its own socket and reads it on a thread of its own (it waits in
/// `poll(2)` for at most half a second at a time, so an ended iteration closes the socket soon).
/// When the socket cannot be opened (not Linux, a sandbox without netlink) the sequence ends at
/// once and the downloader relies on its slow probe.
///
/// ``hasDefaultRoute()`` asks the kernel's routing table through a UDP socket `connect(2)`ed to a
/// public address (`1.1.1.1`, then `2606:4700:4700::1111`): a route lookup; no packet is sent.
public struct NetlinkNetworkMonitor: NetworkChangeMonitor {
    public init() {}

    public func hasDefaultRoute() -> Bool {
        #if os(Linux)
        Self.routes(to: "1.1.1.1", family: AF_INET) || Self.routes(to: "2606:4700:4700::1111", family: AF_INET6)
        #else
        true
        #endif
    }

    public func changes() -> AsyncStream<Void> {
        #if os(Linux)
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard let fd = Self.openSocket() else {
            continuation.finish()
            return stream
        }
        let box = StopFlag()
        continuation.onTermination = { _ in box.stop() }
        let thread = Thread {
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 8192)
            while !box.isStopped {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, 500)
                if ready < 0 && errno != EINTR { break }
                guard ready > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                // ENOBUFS: the kernel dropped messages because we were slow; that too is a change.
                if n > 0 || (n < 0 && errno == ENOBUFS) { continuation.yield() }
                if n < 0 && errno != EAGAIN && errno != EINTR && errno != ENOBUFS { break }
            }
            continuation.finish()
        }
        thread.name = "netlink-monitor"
        thread.start()
        return stream
        #else
        return AsyncStream { $0.finish() }
        #endif
    }

    #if os(Linux)
    /// Whether the kernel has a route to `address`: a UDP socket's `connect(2)` looks the route
    /// up (`ENETUNREACH` without one) and sends nothing.
    private static func routes(to address: String, family: Int32) -> Bool {
        if family == AF_INET {
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = UInt16(53).bigEndian
            guard inet_pton(AF_INET, address, &target.sin_addr) == 1 else { return false }
            return connects(&target, family: family)
        }
        var target = sockaddr_in6()
        target.sin6_family = sa_family_t(AF_INET6)
        target.sin6_port = UInt16(53).bigEndian
        guard inet_pton(AF_INET6, address, &target.sin6_addr) == 1 else { return false }
        return connects(&target, family: family)
    }

    /// Whether a UDP socket of `family` connects to `address` (a `sockaddr_in` or `sockaddr_in6`).
    private static func connects<Address>(_ address: inout Address, family: Int32) -> Bool {
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) == 0
            }
        }
    }

    /// `struct sockaddr_nl` of `<linux/netlink.h>`.
    private struct SockaddrNetlink {
        var family: sa_family_t = sa_family_t(16)  // AF_NETLINK
        var pad: UInt16 = 0
        var pid: UInt32 = 0
        var groups: UInt32 = 0
    }

    /// RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE.
    static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400

    private static func openSocket() -> Int32? {
        let fd = socket(16 /* AF_NETLINK */, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0 /* NETLINK_ROUTE */)
        guard fd >= 0 else { return nil }
        var address = SockaddrNetlink(groups: groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<SockaddrNetlink>.size))
            }
        }
        guard bound == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
    #endif
}

/// Set once the consumer of a ``NetlinkNetworkMonitor`` stream went away.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isStopped: Bool { flag.load(ordering: .relaxed) }
    func stop() { flag.store(true, ordering: .relaxed) }
}
