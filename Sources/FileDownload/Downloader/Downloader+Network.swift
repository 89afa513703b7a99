import Foundation

extension Downloader {
    /// How long after a network change the downloads waiting for it are let go: a link coming up
    /// brings its addresses and routes in a burst of changes, and the burst is one retry.
    static let networkSettleTime: Duration = .seconds(1)

    /// Failures that mean "no way to the server": the connection could not be made (refused,
    /// unreachable, name not resolved) or no byte came for the request timeout.
    static let networkFailures: Set<DownloadError.Code> = [.connectionFailed, .timedOut]

    /// The hook of ``failure(_:_:now:events:)`` for a failure that means the way to the server is
    /// down: the download waits for the network (no retry is used) when the configuration says so.
    func holdsForNetwork(_ e: inout DownloadEntry, after error: DownloadError, now: Duration,
                         events: inout [DownloadEvent]) -> Bool {
        guard configuration.waitsForNetwork, Self.networkFailures.contains(error.code) else { return false }
        e.passHadRetryableFailure = false
        hold(&e, .waitingForNetwork, error: error, now: now, events: &events)
        return true
    }

    /// Starts listening to the network monitor (once; until shutdown).
    func listenToNetwork() {
        guard networkTask == nil, !isShutDown else { return }
        let monitor = configuration.networkMonitor ?? NetlinkNetworkMonitor()
        networkTask = Task { [weak self] in
            for await _ in monitor.changes() {
                guard let self else { return }
                await self.networkMayHaveChanged()
            }
        }
    }

    /// The monitor said the network may have changed: the downloads waiting for it go back to the
    /// queue on the first tick ``networkSettleTime`` after the first change of a burst.
    func networkMayHaveChanged() {
        guard !isShutDown else { return }
        if networkChangedAt == nil { networkChangedAt = clock.now() }
        logger.trace("the network may have changed")
    }
}

extension Downloader {
    /// Whether a network change was signalled and the downloads waiting for it were not let go
    /// yet (for tests that drive a monitor).
    package var isNetworkChangePending: Bool { networkChangedAt != nil }
}
