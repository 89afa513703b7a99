import Foundation

extension Downloader {
    /// The connections the attempt of `id` may use now, at least 1: its own
    /// (``DownloadOptions/maxConnections``, automatic being ``automaticConnections``), within
    /// what the host governor leaves for its origin (``HostConnections/extraAllowed(origin:now:adaptive:)``):
    /// the adaptive target for an automatic download, the cap for one that asked for its number
    /// (the target too once the origin throttled), nothing more while a `Retry-After` holds it.
    ///
    /// The attempt's first connection counts as one for as long as the attempt runs (the
    /// downloader opened it, ``hostOpened(_:url:bytesOnDisk:)``); every further one was counted
    /// through the seam (``segmentReserve(_:handle:running:)``, ``segmentOpened(_:handle:)``).
    func segmentSlots(for id: String) -> Int {
        guard let e = entries[id] else { return 1 }
        return scheduler.segmentSlots(for: id, own: Self.ownConnections(e), adaptive: e.options.maxConnections == nil, now: clock.now())
    }

    /// Whether `handle` is the current attempt of `id` (a call of an abandoned attempt's seam
    /// changes nothing).
    private func isCurrent(_ handle: AttemptHandle, of id: String) -> Bool {
        entries[id]?.attempt === handle
    }

    /// Grants `id`'s attempt (`handle`, with `running` connections) one more connection when
    /// ``segmentSlots(for:)`` allows more than it runs and more than it has counted, and counts it
    /// in the same step (``segmentOpened(_:handle:)``); returns the slots, or `nil` when not
    /// granted.
    ///
    /// Both, because they can differ: the attempt's first connection counts for its origin until
    /// the attempt ends, also after it finished its piece, and the slots are the counted ones plus
    /// the origin's room; a download without an origin counts nothing.
    func segmentReserve(_ id: String, handle: AttemptHandle, running: Int) -> Int? {
        guard let e = entries[id], e.attempt === handle else { return nil }
        return scheduler.reserveSegment(for: id, running: running, own: Self.ownConnections(e),
                                        adaptive: e.options.maxConnections == nil, now: clock.now())
    }

    /// A connection of `id`'s segmented attempt opens: it counts for its origin
    /// (``Scheduler/segmentOpened(_:)``).
    func segmentOpened(_ id: String, handle: AttemptHandle) {
        guard isCurrent(handle, of: id) else { return }
        scheduler.segmentOpened(id)
    }

    /// A connection of `id`'s segmented attempt ended: its origin has room again, which a
    /// download waiting for it may take.
    func segmentClosed(_ id: String, handle: AttemptHandle) {
        guard isCurrent(handle, of: id), scheduler.segmentClosed(id) else { return }
        if !scheduler.queue.isEmpty { schedule() }
    }

    /// A connection of `id`'s segmented attempt ended early with `error`: a throttle (429, 503,
    /// a refusal, a loss soon after another) tells the governor, as the end of an attempt does.
    func segmentFailed(_ id: String, handle: AttemptHandle, error: DownloadError) {
        guard let e = entries[id], e.attempt === handle, let origin = scheduler.origin(of: id) else { return }
        hostFailed(id, origin: origin, error: error, policy: e.options.retryPolicy ?? configuration.retryPolicy, now: clock.now())
    }

    /// The seam the segmented attempt `handle` of `id` calls, holding the downloader weakly.
    func segmentSeam(for id: String, handle: AttemptHandle) -> SegmentSeam {
        SegmentSeam(
            slots: segmentSlots(for: id),
            reserve: { [weak self] running in await self?.segmentReserve(id, handle: handle, running: running) },
            opened: { [weak self] in await self?.segmentOpened(id, handle: handle) },
            closed: { [weak self] in await self?.segmentClosed(id, handle: handle) },
            failed: { [weak self] error in await self?.segmentFailed(id, handle: handle, error: error) },
            now: clock.now
        )
    }

    /// The tick's pass over segmented attempts: one that uses fewer connections than it may
    /// (its origin's target grew, a hold ended, another download closed a connection) is woken
    /// to open more (``SegmentRun`` asks ``segmentReserve(_:handle:running:)`` again).
    func wakeSegments() {
        let now = clock.now()
        for id in scheduler.running {
            guard let e = entries[id], let handle = e.attempt, handle.segments.isActive,
                  scheduler.mayAddSegments(of: id, own: Self.ownConnections(e), adaptive: e.options.maxConnections == nil, now: now)
            else { continue }
            handle.wakeSegments()
        }
    }

    /// The connections `e` may use by its own options, at least 1.
    static func ownConnections(_ e: DownloadEntry) -> Int {
        max(1, e.options.maxConnections ?? automaticConnections)
    }

    /// The connections a download with ``DownloadOptions/maxConnections`` `nil` (automatic) uses
    /// at most: 16, as `aria2c -x` allows at most, and within
    /// ``DownloaderConfiguration/maxConnectionsPerHost`` (8 by default). It starts at the count
    /// remembered for its origin, or 2, and doubles while the rate grows with the connections
    /// (see docs/connections.md).
    public static let automaticConnections = 16
}
