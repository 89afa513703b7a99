/// Tells a ``Downloader`` when the network may have changed (a link, an address or a route came or
/// went), so that downloads waiting for the network (``WaitReason/waitingForNetwork``) are tried
/// again at once instead of at their next slow probe.
///
/// The downloader calls ``changes()`` once, when a download first waits for the network, and
/// iterates the sequence until it shuts down; a burst of changes within a second is one retry.
/// A sequence that ends (a monitor that cannot watch) leaves the slow probe
/// (``DownloaderConfiguration/networkProbeInterval``). On Linux the default is
/// ``NetlinkNetworkMonitor``; tests and other platforms supply their own.
public protocol NetworkChangeMonitor: Sendable {
    /// A new sequence that yields each time the network may have changed. Ending the iteration
    /// (cancelling the task) stops the watch.
    func changes() -> AsyncStream<Void>

    /// Whether the system has a default route (IPv4 or IPv6): a way to the internet at large.
    /// Asked, synchronously, when a host name could not be resolved
    /// (``ConnectionFailure/nameNotResolved``): with a default route the resolver answered that the
    /// name does not exist and the download fails at once (``FailureKind/nameDoesNotExist``);
    /// without one the network is down and the download waits for it. The default implementation
    /// answers `true` (a name that does not resolve fails at once).
    func hasDefaultRoute() -> Bool
}

extension NetworkChangeMonitor {
    public func hasDefaultRoute() -> Bool { true }
}
