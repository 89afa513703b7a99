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
    /// (``ConnectionFailure/nameNotResolved``): with a default route the name most likely does not
    /// exist and the failure counts against the retries; without one the network is down and the
    /// download waits for it. The default implementation answers `true` (names that do not
    /// resolve fail after the retries, as they did before downloads waited for the network).
    func hasDefaultRoute() -> Bool
}

extension NetworkChangeMonitor {
    public func hasDefaultRoute() -> Bool { true }
}
