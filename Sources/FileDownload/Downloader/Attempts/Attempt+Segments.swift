extension Attempt {
    /// Runs the attempt over several connections.
    ///
    /// With `primary` (a fresh attempt: its sink and request, made as for one connection) the
    /// first connection starts; once its head shows a length of at least ``segmentThreshold``
    /// and a strong validator, the rest of the file after the bytes it has is cut into pieces of
    /// at least ``minimumSegmentSize``, one per allowed connection: the first connection keeps
    /// the lowest (its sink stops at its end), the others are fetched with ranged requests
    /// conditional on that validator into the same staging file. Without `primary` the attempt
    /// continues ``segments``.
    ///
    /// Then, until every byte is done: a connection that completes its piece takes a waiting
    /// range, else half of the largest piece left (work stealing); a transient failure puts its
    /// range back to wait and the attempt uses one connection fewer (taken back on a wake after
    /// a sample window without another failure); a segment's head showing another version of
    /// the file (or a restart) ends the attempt with ``AttemptOutcome/restart(_:)``; a server
    /// that ignores ranges leaves the first connection alone to fetch the rest. When no
    /// connection runs any more after a failure, the attempt fails with it and the retry policy
    /// decides.
    ///
    /// How many connections run is asked of the downloader (`seam`): ``SegmentSeam/slots``
    /// before the split, and ``SegmentSeam/reserve``, which grants and counts in one step, before
    /// every further connection opens; when the host governor allows more later (its target
    /// grew, a hold ended), the downloader's tick wakes the attempt (``AttemptHandle/wakeSegments()``),
    /// which then opens connections for waiting ranges or halves of the largest pieces.
    func runSegments(options: TransferOptions, seam: SegmentSeam, primary: (TransferSink, TransferRequest)?) async -> SegmentsResult {
        let board = handle.segments
        let (events, events_) = AsyncStream.makeStream(of: SegmentEvent.self)
        let run = SegmentRun(attempt: self, options: options, seam: seam, board: board, events: events_)
        handle.onSegmentWake { events_.yield(.wake) }
        defer { handle.onSegmentWake(nil) }
        return await withTaskCancellationHandler {
            await run.run(primary: primary, events: events)
        } onCancel: {
            _ = board.cancelAll()
            events_.finish()
        }
    }
}
