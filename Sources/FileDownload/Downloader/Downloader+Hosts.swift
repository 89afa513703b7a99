import Foundation

extension Downloader {
    /// Sets the most connections open at once to `host` (every scheme and port of it), instead of
    /// ``DownloaderConfiguration/maxConnectionsPerHost``; `nil` removes the override. Takes effect
    /// at once: downloads waiting for that host start if the new cap allows; connections above a
    /// lowered cap are not cut, but no new one opens until the count is below it.
    ///
    /// - Parameters:
    ///   - count: the cap, at least 1; `nil` for the configuration's.
    ///   - host: a host name or address as in the URL (`example.org`, `127.0.0.1`), any case.
    /// - Throws: ``DownloadError/Code/invalidState`` when `count` is below 1 or `host` is empty
    ///   (nothing changes).
    public func setMaxConnections(_ count: Int?, forHost host: String) throws {
        if let count, count < 1 {
            throw DownloadError(.invalidState, "the connections per host must be at least 1, not \(count)")
        }
        guard !host.isEmpty else { throw DownloadError(.invalidState, "the host name is empty") }
        scheduler.hosts.setCap(count, forHost: host)
        schedule()
    }

    /// The cap of connections to `host` in force (the override, or the configuration's).
    public func maxConnections(forHost host: String) -> Int {
        scheduler.hosts.cap(forHost: host)
    }

    /// The origin the governor counts an attempt on `url` against; `nil` (not counted) for a URL
    /// without a host, such as a local file.
    static func connectionOrigin(of url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        return url.origin
    }

    /// Counts the attempt of `id` now starting on `url` (from `bytesOnDisk`) against its origin.
    /// Its rate teaches the origin's remembered count only when its download has automatic
    /// connections and no rate limit (its own or the downloader's).
    func hostOpened(_ id: String, url: URL, bytesOnDisk: Int64) {
        guard let origin = Self.connectionOrigin(of: url) else { return }
        let automatic = entries.peek(id) { $0.options.maxConnections == nil && $0.options.transfer.maxBytesPerSecond == nil } ?? true
        let measured = automatic && bandwidthLimit == nil  // (read in place: no copy of the entry per attempt)
        scheduler.opened(id, origin: origin, bytesOnDisk: bytesOnDisk, measured: measured)
    }

    /// The attempt of `id` ended: its connection, and any of its segments' still counted, no
    /// longer count; a throttle (429 or 503, a refused connection, a lost one soon after another)
    /// tells the governor (``hostFailed(_:origin:error:policy:now:)``).
    func hostClosed(_ id: String, error: DownloadError?, policy: RetryPolicy, now: Duration) {
        guard let origin = scheduler.closed(id), let error else { return }
        hostFailed(id, origin: origin, error: error, policy: policy, now: now)
    }

    /// A connection of `id` to `origin` failed with `error`: when that is a throttle (429 or
    /// 503, a refused connection, a lost one soon after another), the governor halves the
    /// origin's target and holds it for the server's `Retry-After`, bounded by the download's
    /// retry policy (``RetryPolicy/maxDelay``).
    func hostFailed(_ id: String, origin: String, error: DownloadError, policy: RetryPolicy, now: Duration) {
        guard error.code != .cancelled else { return }
        let throttles = error.code == .connectionLost
            ? scheduler.hosts.lost(origin: origin, now: now)
            : Self.isThrottle(error)
        guard throttles else { return }
        let wait = error.retryAfter.map { min($0, policy.maxDelay) }
        scheduler.hosts.throttled(origin: origin, retryAfter: wait, now: now)
        rememberLearnedHosts()
        let hold = wait.map { ", no new connection for \($0)" } ?? ""
        logger.debug("download '\(id)': \(origin) throttles (\(error.code)); target \(scheduler.hosts.target(of: origin))\(hold)")
    }

    /// The error an attempt failed with on its own (not stopped by the downloader), if any.
    static func failureError(_ outcome: AttemptOutcome, _ handle: AttemptHandle) -> DownloadError? {
        guard case .failed(let error) = outcome, handle.stopReason.withLock({ $0 }) == nil else { return nil }
        return error
    }

    /// Whether `error` alone says the server wants fewer connections: HTTP 429 or 503, or a
    /// refused connection. (A lost connection counts only when repeated: ``HostConnections/lost(origin:now:)``.)
    static func isThrottle(_ error: DownloadError) -> Bool {
        error.statusCode == 429 || error.statusCode == 503 || error.connectionFailure == .refused
    }

    /// The tick's sample of a running attempt: the bytes it received since the last one count
    /// for its origin's throughput.
    func recordHostBytes(_ id: String, fileLength: Int64, now: Duration) {
        scheduler.record(id, fileLength: fileLength, now: now)
        rememberLearnedHosts()
    }

    /// Reads, once per downloader, the connection counts the store remembers per origin
    /// (``DownloadStore/rememberedConnections()``): an origin seen for the first time then starts
    /// its adaptive target there (within its cap) instead of at 2. Called before a download is
    /// added, restored or started from resume data; does nothing after the first call or without
    /// a store. A store that cannot answer is logged as a warning, and every origin starts afresh.
    func loadRememberedHosts() async {
        guard !scheduler.hosts.loadedMemory, persistence.hasStore else { return }
        let counts = await persistence.rememberedConnections()
        scheduler.hosts.loadedMemory = true
        scheduler.hosts.remember(counts)
    }

    /// Hands what the governor learned of its origins since the last call (each one's latest
    /// measured count: of a window that scaled, a settled target, or a target a throttle lowered)
    /// to the store, after the writes posted before.
    func rememberLearnedHosts() {
        let learned = scheduler.hosts.takeLearned()
        guard !learned.isEmpty else { return }
        for (origin, count) in learned.sorted(by: { $0.key < $1.key }) {
            persistence.rememberConnections(count, forOrigin: origin)
        }
    }

    /// Whether a download waits in the queue for a held origin (so the tick must go on to start
    /// it when the hold ends).
    var waitsForHost: Bool {
        scheduler.waitsForHost(now: clock.now())
    }
}
