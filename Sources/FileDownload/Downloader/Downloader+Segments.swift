import Foundation

extension Downloader {
    /// How a segmented attempt ended (``runSegments(_:handle:transport:delegate:options:seam:primary:)``).
    enum SegmentsResult: Sendable {
        /// The file was not split: the first connection ended on its own, with this error or
        /// none; the attempt goes on as a one-connection attempt.
        case single((any Error)?)
        /// The attempt is over.
        case finished(AttemptOutcome)
    }

    /// What the coordinator of a segmented attempt waits for.
    enum SegmentEvent: Sendable {
        /// The first connection's head arrived and split the file (a head that does not split
        /// it is not announced: the connection's end comes next).
        case head
        /// The connection of piece `key` ended, with the error it threw or none.
        case ended(key: Int, error: (any Error)?)
        /// The downloader may allow more connections now (``wakeSegments()``).
        case wake
    }

    /// Runs an attempt over several connections, away from the actor.
    ///
    /// With `primary` (a fresh attempt: its sink and request, made as for one connection) the
    /// first connection starts; once its head shows a length of at least
    /// ``DownloaderConfiguration/segmentThreshold`` and a strong validator, the rest of the file
    /// after the bytes it has is cut into pieces of at least
    /// ``DownloaderConfiguration/minimumSegmentSize``, one per allowed connection: the first
    /// connection keeps the lowest (its sink stops at its end), the others are fetched with
    /// ranged requests conditional on that validator into the same staging file. Without
    /// `primary` the attempt continues the segments of ``AttemptContext/segments``.
    ///
    /// Then, until every byte is done: a connection that completes its piece takes a waiting
    /// range, else half of the largest piece left (work stealing); a transient failure puts its
    /// range back to wait and the attempt uses one connection fewer (taken back on a wake after
    /// a sample window without another failure); a segment's head showing another version of the file (or a restart)
    /// ends the attempt with ``AttemptOutcome/restart(_:)``; a server that ignores ranges leaves
    /// the first connection alone to fetch the rest. When no connection runs any more after a
    /// failure, the attempt fails with it and the retry policy decides.
    ///
    /// How many connections run is asked of the downloader (`seam`): ``segmentSlots(for:)``
    /// before the split, and ``segmentReserve(_:handle:running:)``, which grants and counts in one
    /// step, before every further connection opens; when the host governor allows more
    /// later (its target grew, a hold ended), the tick wakes the attempt (``wakeSegments()``),
    /// which then opens connections for waiting ranges or halves of the largest pieces.
    static func runSegments(
        _ ctx: AttemptContext, handle: AttemptHandle, transport: any Transport, delegate: (any DownloaderDelegate)?,
        options: TransferOptions, seam: SegmentSeam, primary: (TransferSink, TransferRequest)?
    ) async -> SegmentsResult {
        let board = handle.segments
        let (events, events_) = AsyncStream.makeStream(of: SegmentEvent.self)
        let run = SegmentRun(ctx: ctx, handle: handle, transport: transport, delegate: delegate, options: options,
                             seam: seam, board: board, events: events_)
        handle.onSegmentWake { events_.yield(.wake) }
        defer { handle.onSegmentWake(nil) }
        return await withTaskCancellationHandler {
            await run.run(primary: primary, events: events)
        } onCancel: {
            _ = board.cancelAll()
            events_.finish()
        }
    }

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
        let own = Self.ownConnections(e)
        guard let origin = attemptOrigins[id]?.origin else { return own }
        let using = 1 + segmentExtras[id, default: 0]
        let room = extraRoom(e, origin: origin, now: clock.now())
        if room == 0, using < own, hosts.holdEnd(of: origin, now: clock.now()) == nil { hosts.wanted(origin: origin) }
        return max(1, min(own, using + room))
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
        guard isCurrent(handle, of: id) else { return nil }
        let slots = segmentSlots(for: id)
        guard running < slots, 1 + segmentExtras[id, default: 0] < slots else { return nil }
        segmentOpened(id, handle: handle)
        return slots
    }

    /// A connection of `id`'s segmented attempt opens: it counts for its origin.
    func segmentOpened(_ id: String, handle: AttemptHandle) {
        guard isCurrent(handle, of: id), let origin = attemptOrigins[id]?.origin else { return }
        hosts.opened(origin: origin)
        segmentExtras[id, default: 0] += 1
    }

    /// A connection of `id`'s segmented attempt ended: its origin has room again, which a
    /// download waiting for it may take.
    func segmentClosed(_ id: String, handle: AttemptHandle) {
        guard isCurrent(handle, of: id), let origin = attemptOrigins[id]?.origin,
              let extras = segmentExtras[id], extras > 0 else { return }
        hosts.closed(origin: origin)
        segmentExtras[id] = extras > 1 ? extras - 1 : nil
        if !queue.isEmpty { schedule() }
    }

    /// A connection of `id`'s segmented attempt ended early with `error`: a throttle (429, 503,
    /// a refusal, a loss soon after another) tells the governor, as the end of an attempt does.
    func segmentFailed(_ id: String, handle: AttemptHandle, error: DownloadError) {
        guard isCurrent(handle, of: id), let origin = attemptOrigins[id]?.origin, let e = entries[id] else { return }
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
        for id in running {
            guard let e = entries[id], let handle = e.attempt, handle.segments.isActive,
                  let origin = attemptOrigins[id]?.origin else { continue }
            guard 1 + segmentExtras[id, default: 0] < Self.ownConnections(e), extraRoom(e, origin: origin, now: now) > 0 else { continue }
            handle.wakeSegments()
        }
    }

    /// The connections `e` may use by its own options, at least 1.
    static func ownConnections(_ e: DownloadEntry) -> Int {
        max(1, e.options.maxConnections ?? automaticConnections)
    }

    /// The extra connections the governor leaves for `e` at `origin` now: by the adaptive target
    /// when its number is automatic, by the cap when it asked for one.
    func extraRoom(_ e: DownloadEntry, origin: String, now: Duration) -> Int {
        hosts.extraAllowed(origin: origin, now: now, adaptive: e.options.maxConnections == nil)
    }

    /// The connections a download with ``DownloadOptions/maxConnections`` `nil` (automatic) uses
    /// at most: 4, a modest number servers accept.
    public static let automaticConnections = 4
}
