import Foundation

extension NetworkNamespace {
    /// The namespace's own `resolv.conf` (`/etc/netns/NAME/resolv.conf`, which `ip netns exec`
    /// mounts over `/etc/resolv.conf` for the programs it runs) names `nameserver` only.
    /// ``removeResolver()`` deletes it: call it in a `defer`.
    public func setResolver(_ nameserver: String) throws {
        let directory = "/etc/netns/\(name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("nameserver \(nameserver)\noptions timeout:1 attempts:1\n".utf8)
            .write(to: URL(fileURLWithPath: "\(directory)/resolv.conf"))
    }

    /// Deletes what ``setResolver(_:)`` wrote.
    public func removeResolver() {
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
    }

    /// Gives the namespace a default route, through the host's end of the link: programs in it
    /// see a machine with a way out (its packets to other addresses go nowhere useful).
    public func addDefaultRoute() throws {
        _ = try ChildProcess.runChecked(exec + ["ip", "route", "add", "default", "via", hostAddress], limit: .seconds(60))
    }
}
