import FileDownload
import Foundation
import Synchronization

/// The system's ``NetlinkNetworkMonitor`` with a count: each change it passes on is noted with
/// the real time it came, so a test can tell the probes the changes asked for (one per burst,
/// and the machine's other users — other tests' network namespaces and veth pairs — make
/// bursts too) from probes nothing asked for.
final class CountingNetworkMonitor: NetworkChangeMonitor, Sendable {
    private let system = NetlinkNetworkMonitor()
    private let seen = Mutex<[ContinuousClock.Instant]>([])

    func hasDefaultRoute() -> Bool { system.hasDefaultRoute() }

    func changes() -> AsyncStream<Void> {
        let upstream = system.changes()
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let task = Task { [self] in
            for await _ in upstream {
                seen.withLock { $0.append(.now) }
                continuation.yield()
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// How many bursts of changes came between `start` and `end`: a change more than `settle`
    /// after the first change of the current burst starts a new one (the downloader lets its
    /// waiting downloads go once per burst, no sooner than `settle` after its first change).
    func bursts(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant,
                settle: Duration) -> Int {
        var count = 0
        var burstStart: ContinuousClock.Instant?
        for t in seen.withLock({ $0 }) where t >= start && t <= end {
            if let b = burstStart, t - b < settle { continue }
            burstStart = t
            count += 1
        }
        return count
    }
}
