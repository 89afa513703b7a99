import Foundation

/// A network namespace joined to the test's own by a veth pair (needs root and iproute2, as in
/// CI): the server side lives inside at ``address``, the host side is ``hostInterface``
/// (``hostAddress``). Names and the /24 subnet are random per instance, so tests running at once
/// do not meet. ``remove()`` deletes the namespace (and with it the veth pair): call it in a
/// `defer` right after creating one.
///
/// The subnet also gets an `unreachable` route of a high metric (4000), used only while the
/// veth's own route is gone (link down, route removed): the machine then has no way to the
/// namespace, as on a network that went away — a new connection fails at once with
/// `EHOSTUNREACH` (a blackhole route would give `EINVAL`, which no real outage gives), packets of
/// an open connection go nowhere — instead of leaving by the machine's default route, whose
/// gateway might answer in the server's place (a sandbox that intercepts HTTP answers 404).
public final class NetworkNamespace: Sendable {
    public let name: String
    /// The host's end of the veth pair.
    public let hostInterface: String
    public let hostAddress: String
    /// The address of the namespace's end, where its servers listen.
    public let address: String
    private let subnet: String

    public init() throws {
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        name = "fdl-\(tag)"
        hostInterface = "fh\(tag)"
        let inner = "fn\(tag)"
        let net = "10.\(Int.random(in: 200...250)).\(Int.random(in: 0...255))"
        hostAddress = "\(net).1"
        address = "\(net).2"
        subnet = "\(net).0/24"
        do {
            try Self.ip(["netns", "add", name])
            try Self.ip(["link", "add", hostInterface, "type", "veth", "peer", "name", inner])
            try Self.ip(["link", "set", inner, "netns", name])
            try Self.ip(["addr", "add", "\(hostAddress)/24", "dev", hostInterface])
            try Self.ip(["link", "set", hostInterface, "up"])
            try Self.ip(["netns", "exec", name, "ip", "addr", "add", "\(address)/24", "dev", inner])
            try Self.ip(["netns", "exec", name, "ip", "link", "set", inner, "up"])
            try Self.ip(["netns", "exec", name, "ip", "link", "set", "lo", "up"])
            try Self.ip(["route", "add", "unreachable", subnet, "metric", "4000"])
        } catch {
            remove()
            throw error
        }
    }

    /// The command prefix that runs a program inside the namespace.
    public var exec: [String] { ["/usr/sbin/ip", "netns", "exec", name] }

    /// Takes the host's end of the link down (its route goes with it) or brings it back up.
    public func setLink(up: Bool) throws {
        try Self.ip(["link", "set", hostInterface, up ? "up" : "down"])
    }

    /// Removes the host's route to the namespace's subnet, or adds it back; the link stays up.
    public func setRoute(present: Bool) throws {
        try Self.ip(["route", present ? "add" : "del", subnet, "dev", hostInterface])
    }

    /// Deletes the namespace and the veth pair; harmless when they are gone.
    public func remove() {
        try? Self.ip(["route", "del", "unreachable", subnet, "metric", "4000"])
        try? Self.ip(["link", "del", hostInterface])
        try? Self.ip(["netns", "del", name])
    }

    private static func ip(_ arguments: [String]) throws {
        try ChildProcess.runChecked(["/usr/sbin/ip"] + arguments, limit: .seconds(60))
    }
}
