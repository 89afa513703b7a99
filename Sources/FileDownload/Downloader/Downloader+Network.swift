import Foundation

extension Downloader {
    /// How long after a network change the downloads waiting for it are let go: a link coming up
    /// brings its addresses and routes in a burst of changes, and the burst is one retry.
    static let networkSettleTime: Duration = .seconds(1)

    /// The hook of ``failure(_:_:now:events:)`` for a failure that ``FailurePolicy`` classes
    /// ``FailureClass/waitForNetwork`` (the machine has no way out): the download waits for the
    /// network (no retry is used) when the configuration says so, or fails when it has waited
    /// ``DownloaderConfiguration/maxNetworkWait`` in this stretch already.
    func holdsForNetwork(_ e: inout DownloadEntry, after error: DownloadError, failureClass: FailureClass, now: Duration,
                         events: inout [DownloadEvent]) -> Bool {
        guard configuration.waitsForNetwork, failureClass == .waitForNetwork else { return false }
        let since = e.networkWaitSince ?? now
        if now - since >= configuration.maxNetworkWait {
            failWait(&e, networkWaitError(e, error), now: now, events: &events)
            return true
        }
        e.networkWaitSince = since
        e.waitingSince = now
        e.passHadRetryableFailure = false
        let host = Self.hostKey(of: e)
        if (networkProbeAt[host] ?? now) <= now { networkProbeAt[host] = now + configuration.networkProbeInterval }
        hold(&e, .waitingForNetwork, error: error, now: now, events: &events)
        return true
    }

    /// The monitor the configuration names, or the system's.
    var networkMonitor: any NetworkChangeMonitor {
        configuration.networkMonitor ?? NetlinkNetworkMonitor()
    }

    /// Starts listening to the network monitor (once; until shutdown).
    func listenToNetwork() {
        guard networkTask == nil, !isShutDown else { return }
        let monitor = networkMonitor
        networkTask = Task { [weak self] in
            for await _ in monitor.changes() {
                guard let self else { return }
                await self.networkMayHaveChanged()
            }
        }
    }

    /// The monitor said the network may have changed: the downloads waiting for it are probed on
    /// the first tick ``networkSettleTime`` after the first change of a burst.
    func networkMayHaveChanged() {
        guard !isShutDown else { return }
        if networkChangedAt == nil { networkChangedAt = clock.now() }
        logger.trace("the network may have changed")
    }

    /// Which of the downloads waiting for the network (`held`, in queue order) go back to the
    /// queue now. Per server (scheme, host and port): all of them once an attempt to that server
    /// got an answer (a head) after they were put on hold; else one, the first in queue order, as
    /// a probe, when the network changed or the server's slow probe is due, and none while a
    /// probe of that server still runs without an answer. So a lost server costs one attempt per change burst and per
    /// ``DownloaderConfiguration/networkProbeInterval``, however many downloads wait for it.
    func networkReleases(_ held: [DownloadEntry], now: Duration) -> [String] {
        let networkChanged = networkChangedAt.map { now - $0 >= Self.networkSettleTime } ?? false
        // Servers being probed: an attempt runs that has no answer yet.
        var probing: Set<String> = []
        for id in running {
            guard let e = entries[id], !e.headSeen else { continue }
            probing.insert(Self.hostKey(of: e))
        }
        var released: [String] = []
        var waitingHosts: Set<String> = []
        for e in held {
            let host = Self.hostKey(of: e)
            waitingHosts.insert(host)
            if let answered = serverAnsweredAt[host], answered >= e.heldAt ?? now {
                released.append(e.id)
            } else if !probing.contains(host), networkChanged || (networkProbeAt[host] ?? now) <= now {
                probing.insert(host)
                networkProbeAt[host] = now + configuration.networkProbeInterval
                released.append(e.id)
            }
        }
        if networkChanged || held.isEmpty { networkChangedAt = nil }
        networkProbeAt = networkProbeAt.filter { waitingHosts.contains($0.key) }
        serverAnsweredAt = serverAnsweredAt.filter { waitingHosts.contains($0.key) }
        return released
    }

    /// An attempt of `e` got its head: when downloads wait for the network to that server, the
    /// way works again and they go back to the queue on the next tick.
    func serverAnswered(_ e: DownloadEntry) {
        guard !networkProbeAt.isEmpty else { return }
        let host = Self.hostKey(of: e)
        if networkProbeAt[host] != nil { serverAnsweredAt[host] = clock.now() }
    }

    /// The server a download's next attempt goes to: scheme, host and port of its current URL.
    static func hostKey(of e: DownloadEntry) -> String {
        let url = e.currentURL
        return "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port.map(String.init) ?? "")"
    }
}

extension Downloader {
    /// Whether a network change was signalled and the downloads waiting for it were not let go
    /// yet (for tests that drive a monitor).
    package var isNetworkChangePending: Bool { networkChangedAt != nil }
}
