/// The part of the ``Downloader`` that waits for the network, with the state it owns: when the
/// network last changed, and per server (scheme, host and port) when it is probed next and
/// when it last answered. It decides which downloads on hold for the network go back to the
/// queue; the Downloader tells it what happened (a hold, a change, an answer) and carries its
/// answer out (``DownloadLifecycle/holdEnded()``). No I/O, no clock: times come as arguments.
struct NetworkWaits: Sendable {
    /// How long after a network change the downloads waiting for it are let go: a link coming up
    /// brings its addresses and routes in a burst of changes, and the burst is one retry.
    static let settleTime: Duration = .seconds(1)

    /// A download on hold for the network, as ``releases(_:probing:now:)`` looks at it.
    struct Held: Sendable {
        let id: String
        /// Its server (``Downloader/hostKey(of:)``).
        let host: String
        /// When it was put on hold.
        let since: Duration?
    }

    /// At most how long a server waited for is left without a probe
    /// (``DownloaderConfiguration/networkProbeInterval``).
    let probeInterval: Duration
    /// When the monitor last said the network may have changed, until the downloads waiting for
    /// it were let go (after ``settleTime``, so a burst of changes is one retry).
    private(set) var changedAt: Duration?
    /// When each server that downloads wait for is probed next at the latest.
    private var probeAt: [String: Duration] = [:]
    /// When a server that downloads wait for last answered an attempt (sent a head).
    private var answeredAt: [String: Duration] = [:]

    init(probeInterval: Duration) {
        self.probeInterval = probeInterval
    }

    /// Whether a download waits for the network (a server is to be probed).
    var isWaiting: Bool { !probeAt.isEmpty }

    /// Whether a change was signalled and the downloads waiting for it were not let go yet.
    var isChangePending: Bool { changedAt != nil }

    /// The monitor said the network may have changed (the first change of a burst counts).
    mutating func mayHaveChanged(now: Duration) {
        if changedAt == nil { changedAt = now }
    }

    /// A download of `host` was put on hold for the network: the server is probed at the latest
    /// one ``probeInterval`` from now (a probe already due sooner stays).
    mutating func holdStarted(host: String, now: Duration) {
        if (probeAt[host] ?? now) <= now { probeAt[host] = now + probeInterval }
    }

    /// An attempt to `host` got its head: when downloads wait for that server, the way works
    /// again and they go at the next ``releases(_:probing:now:)``.
    mutating func serverAnswered(host: String, now: Duration) {
        guard probeAt[host] != nil else { return }
        answeredAt[host] = now
    }

    /// Which of the downloads waiting for the network (`held`, in queue order) go back to the
    /// queue now. Per server: all of them once an attempt to that server got an answer after
    /// they were put on hold; else one, the first in queue order, as a probe, when the network
    /// changed (``settleTime`` ago) or the server's slow probe is due, and none while a probe of
    /// that server (`probing`: the servers an attempt runs to without an answer yet) runs. So a
    /// lost server costs one attempt per change burst and per ``probeInterval``, however many
    /// downloads wait for it. Forgets the servers no download waits for any more.
    mutating func releases(_ held: [Held], probing: Set<String>, now: Duration) -> [String] {
        let networkChanged = changedAt.map { now - $0 >= Self.settleTime } ?? false
        var probing = probing
        var released: [String] = []
        var waitingHosts: Set<String> = []
        for e in held {
            waitingHosts.insert(e.host)
            if let answered = answeredAt[e.host], answered >= e.since ?? now {
                released.append(e.id)
            } else if !probing.contains(e.host), networkChanged || (probeAt[e.host] ?? now) <= now {
                probing.insert(e.host)
                probeAt[e.host] = now + probeInterval
                released.append(e.id)
            }
        }
        if networkChanged || held.isEmpty { changedAt = nil }
        probeAt = probeAt.filter { waitingHosts.contains($0.key) }
        answeredAt = answeredAt.filter { waitingHosts.contains($0.key) }
        return released
    }
}
