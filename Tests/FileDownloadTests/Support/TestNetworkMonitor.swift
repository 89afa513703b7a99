import FileDownload
import Synchronization

/// A ``NetworkChangeMonitor`` the test drives: ``signal()`` is one network change;
/// ``defaultRoute`` is its answer to ``hasDefaultRoute()``.
final class TestNetworkMonitor: NetworkChangeMonitor {
    private let continuations = Mutex<[AsyncStream<Void>.Continuation]>([])
    private let route: Mutex<Bool>
    private let endedCount = Atomic<Int>(0)

    init(defaultRoute: Bool = true) { route = Mutex(defaultRoute) }

    var defaultRoute: Bool {
        get { route.withLock { $0 } }
        set { route.withLock { $0 = newValue } }
    }

    func hasDefaultRoute() -> Bool { defaultRoute }

    func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        continuation.onTermination = { [weak self] _ in self?.endedCount.add(1, ordering: .relaxed) }
        continuations.withLock { $0.append(continuation) }
        return stream
    }

    /// How many sequences the downloader asked for.
    var subscribers: Int { continuations.withLock { $0.count } }

    /// How many of those sequences ended (their iteration was cancelled).
    var ended: Int { endedCount.load(ordering: .relaxed) }

    /// Tells every subscriber that the network may have changed.
    func signal() {
        for c in continuations.withLock({ $0 }) { c.yield() }
    }
}
