import Foundation

extension Downloader {
    /// How long after a network change the downloads waiting for it are let go
    /// (``NetworkWaits/settleTime``).
    static var networkSettleTime: Duration { NetworkWaits.settleTime }

    /// The hook of ``failure(_:_:now:events:)`` for a failure that ``FailurePolicy`` classes
    /// ``FailureClass/waitForNetwork`` (the machine has no way out): the download waits for the
    /// network (no retry is used) when the configuration says so, or fails when it has waited
    /// ``DownloaderConfiguration/maxNetworkWait`` in this stretch already.
    func holdsForNetwork(_ e: inout DownloadEntry, after error: DownloadError, failureClass: FailureClass, now: Duration,
                         events: inout [DownloadEvent]) -> Bool {
        guard configuration.waitsForNetwork, failureClass == .waitForNetwork else { return false }
        let since = e.lifecycle.networkWaitSince ?? now
        if now - since >= configuration.maxNetworkWait {
            failWait(&e, networkWaitError(e, error), now: now, events: &events)
            return true
        }
        e.waitingSince = now
        e.passHadRetryableFailure = false
        networkWaits.holdStarted(host: Self.hostKey(of: e), now: now)
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
        networkWaits.mayHaveChanged(now: clock.now())
        logger.trace("the network may have changed")
    }

    /// Which of the downloads waiting for the network (`held`, in queue order) go back to the
    /// queue now (``NetworkWaits/releases(_:probing:now:)``: per server, all once it answered,
    /// else one probe per change burst and per ``DownloaderConfiguration/networkProbeInterval``).
    func networkReleases(_ held: [DownloadEntry], now: Duration) -> [String] {
        // Servers being probed: an attempt runs that has no answer yet.
        var probing: Set<String> = []
        for id in scheduler.running {
            guard let e = entries[id], !e.headSeen else { continue }
            probing.insert(Self.hostKey(of: e))
        }
        let waiting = held.map { NetworkWaits.Held(id: $0.id, host: Self.hostKey(of: $0), since: $0.heldAt) }
        return networkWaits.releases(waiting, probing: probing, now: now)
    }

    /// An attempt of `e` got its head: when downloads wait for the network to that server, the
    /// way works again and they go back to the queue on the next tick.
    func serverAnswered(_ e: DownloadEntry) {
        guard networkWaits.isWaiting else { return }
        networkWaits.serverAnswered(host: Self.hostKey(of: e), now: clock.now())
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
    package var isNetworkChangePending: Bool { networkWaits.isChangePending }
}
