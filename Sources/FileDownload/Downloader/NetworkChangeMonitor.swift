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
}
