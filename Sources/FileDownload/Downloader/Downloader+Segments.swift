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
        /// The first connection's head arrived.
        case head
        /// The connection of piece `key` ended, with the error it threw or none.
        case ended(key: Int, error: (any Error)?)
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
    /// range back to wait; a segment's head showing another version of the file (or a restart)
    /// ends the attempt with ``AttemptOutcome/restart(_:)``; a server that ignores ranges leaves
    /// the first connection alone to fetch the rest. When no connection runs any more after a
    /// failure, the attempt fails with it and the retry policy decides.
    static func runSegments(
        _ ctx: AttemptContext, handle: AttemptHandle, transport: any Transport, delegate: (any DownloaderDelegate)?,
        options: TransferOptions, seam: SegmentSeam, primary: (TransferSink, TransferRequest)?
    ) async -> SegmentsResult {
        let board = handle.segments
        let (events, events_) = AsyncStream.makeStream(of: SegmentEvent.self)
        let run = SegmentRun(ctx: ctx, handle: handle, transport: transport, delegate: delegate, options: options,
                             seam: seam, board: board, events: events_)
        return await withTaskCancellationHandler {
            await run.run(primary: primary, events: events)
        } onCancel: {
            _ = board.cancelAll()
            events_.finish()
        }
    }

    /// The connections a download may use now: ``DownloadOptions/maxConnections``, automatic
    /// (`nil`) being ``automaticConnections``; at least 1.
    ///
    /// The seam to the per-host governor: it is asked before every connection a segmented
    /// attempt opens beyond the first.
    func segmentSlots(for id: String) -> Int {
        guard let e = entries[id] else { return 1 }
        return max(1, e.options.maxConnections ?? Self.automaticConnections)
    }

    /// A connection of `id`'s segmented attempt was opened (the seam to the per-host governor).
    func segmentOpened(_ id: String) {}

    /// A connection of `id`'s segmented attempt ended (the seam to the per-host governor).
    func segmentClosed(_ id: String) {}

    /// A connection of `id`'s segmented attempt failed with a 429, 503, reset or refusal (the
    /// seam to the per-host governor, which backs off).
    func segmentThrottled(_ id: String, retryAfter: Duration?) {
        logger.debug("download '\(id)': a segment's connection was throttled or lost; fewer connections")
    }

    /// The seam a segmented attempt of `id` calls, holding the downloader weakly.
    func segmentSeam(for id: String) -> SegmentSeam {
        SegmentSeam(
            slots: { [weak self] in await self?.segmentSlots(for: id) ?? 1 },
            opened: { [weak self] in await self?.segmentOpened(id) },
            closed: { [weak self] in await self?.segmentClosed(id) },
            throttled: { [weak self] retryAfter in await self?.segmentThrottled(id, retryAfter: retryAfter) }
        )
    }

    /// The connections a download with ``DownloadOptions/maxConnections`` `nil` (automatic) uses
    /// at most: 4, a modest number servers accept.
    public static let automaticConnections = 4
}
