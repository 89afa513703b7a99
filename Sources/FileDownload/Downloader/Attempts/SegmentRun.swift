import Foundation

/// The coordinator of one segmented attempt: starts, watches and ends its connections (see
/// ``Attempt/runSegments(options:seam:primary:)``). Used by the
/// attempt's task only.
final class SegmentRun {
    typealias Piece = SegmentBoard.Piece

    /// The attempt it runs the connections of (its inputs, handle, transport and delegate).
    let attempt: Attempt
    let handle: AttemptHandle
    let options: TransferOptions
    let seam: SegmentSeam
    let board: SegmentBoard
    let events: AsyncStream<SegmentEvent>.Continuation
    /// The connections this attempt allows itself besides what the downloader allows (`Int.max`:
    /// no bound of its own): each transient failure lowers it to the connections still running,
    /// so a server that fails every extra connection is not asked again at once; a wake after a
    /// sample window (``HostConnections/sampleWindow``) without a failure raises it by one.
    private var cap = Int.max
    /// When ``cap`` last changed, on the downloader's clock (``SegmentSeam/now``).
    private var capChangedAt: Duration = .zero
    private var validator: Validator?
    private var total: Int64 = 0
    /// A sink that got a head: what the finished file is validated and moved through.
    private var headSink: TransferSink?
    /// The sink of the attempt's own first connection (not opened through the seam).
    private var primarySink: TransferSink?
    /// Connections the downloader counts for this attempt whose piece ended: the next range
    /// takes one without asking (so a connection that finishes its piece goes on with a waiting
    /// range even while the origin has no room for more, as when it is held); any left after
    /// ``fill()`` are let go (``releaseSpares()``).
    private var spare = 0
    /// The connections the attempt may use, as the downloader last said (``SegmentSeam/slots``,
    /// then each grant): what a request taking a spare connection tells its transport.
    private var allowed: Int
    /// The overlap window of this attempt's ranges (``overlapWindow(minimumSegmentSize:)``): a
    /// range after the first asks for this many bytes before its start, which must equal the
    /// bytes its neighbour wrote there. 0: no overlap.
    private let window: Int64
    /// The overlap windows received by pieces that ended, not compared yet (their neighbour's
    /// bytes were not all on disk then), by where they lie in the file.
    private var overlaps: [Int64: [UInt8]] = [:]
    /// Where the windows already compared lie.
    private var compared: Set<Int64> = []

    init(attempt: Attempt, options: TransferOptions, seam: SegmentSeam, board: SegmentBoard,
         events: AsyncStream<SegmentEvent>.Continuation) {
        self.attempt = attempt
        self.handle = attempt.handle
        self.options = options
        self.seam = seam
        self.board = board
        self.events = events
        allowed = seam.slots
        window = Self.overlapWindow(minimumSegmentSize: attempt.minimumSegmentSize)
    }

    /// The overlap window for pieces of at least `minimumSegmentSize` bytes: 4 KiB, less for
    /// smaller pieces (a 1024th of their size, so that the windows cost under 0.1 % of the file:
    /// every range but the first costs one, and ranges are at least that large), none below
    /// 64 bytes (pieces under 64 KiB).
    static func overlapWindow(minimumSegmentSize: Int64) -> Int64 {
        let window = min(4096, minimumSegmentSize / 1024)
        return window >= 64 ? window : 0
    }

    func run(primary: (TransferSink, TransferRequest)?, events stream: AsyncStream<SegmentEvent>) async -> SegmentsResult {
        var iterator = stream.makeAsyncIterator()
        if let (sink, request) = primary {
            if let single = await startPrimary(sink, request, iterator: &iterator) { return single }
        } else {
            guard let total = attempt.expectedLength else { return .finished(.failed(DownloadError(.invalidState, "segments without a length"))) }
            self.total = total
            validator = attempt.validator
            spare = 1  // the attempt's own connection, counted by the downloader, runs no piece yet
            var segments = attempt.segments
            if segments.allSatisfy(\.isComplete), let last = segments.indices.last {
                // Every byte is on disk, but the file is moved through a sink that saw a head:
                // the last byte is fetched again.
                segments[last].done = segments[last].end - segments[last].start - 1
            }
            board.activate(total: total, finished: segments.filter(\.isComplete),
                           pending: segments.filter { !$0.isComplete })
        }
        if let outcome = await fill() { return .finished(await abort(outcome)) }
        while let event = await iterator.next() {
            if case .wake = event {
                // The downloader may allow more connections: ranges waiting, or halves to steal.
                guard board.isActive, !board.isRefused, !board.isComplete,
                      handle.stopReason.withLock({ $0 }) == nil else { continue }
                regrow()
                if let outcome = await fill() { return .finished(await abort(outcome)) }
                continue
            }
            guard case .ended(let key, let error) = event, let piece = board.remove(key) else { continue }
            spare += 1  // still counted by the downloader (the first connection until the attempt ends)
            piece.sink.seal()
            if handle.stopReason.withLock({ $0 }) != nil { continue }  // the cancellation ends the loop
            if let outcome = await ended(piece, error: error) { return .finished(await abort(outcome)) }
            if !board.isRefused, !seamsAgree(ended: piece) { return .finished(await abort(.restart(.segmentsDisagree))) }
            if board.isComplete {
                await releaseSpares()  // not held through validation and the move
                return .finished(await finish())
            }
            if board.isRefused {
                await releaseSpares()  // the first connection goes on alone
                continue
            }
            if let outcome = await fill() { return .finished(await abort(outcome)) }
            await releaseSpares()
        }
        return .finished(await abort(.stopped))
    }

    /// Starts the first connection and waits for its head; splits the file when it qualifies.
    /// Returns the result when the attempt stays on one connection (after it ended).
    private func startPrimary(
        _ sink: TransferSink, _ request: TransferRequest, iterator: inout AsyncStream<SegmentEvent>.Iterator
    ) async -> SegmentsResult? {
        let events = self.events, board = self.board
        let cap = seam.slots  // what the split cuts for; more may be allowed later
        let key = board.reserveKey()
        let threshold = attempt.segmentThreshold, minimum = max(1, attempt.minimumSegmentSize)
        // The split is decided on the transport's thread as the head arrives, before the first
        // body byte: the first connection cannot run past its piece's end meanwhile. Only a split
        // wakes this task before the connection ends (most files are not split: one wake less).
        sink.observeHead { [weak sink] in
            if let sink { Self.split(sink, key: key, board: board, cap: cap, threshold: threshold, minimum: minimum) }
            if board.isActive { events.yield(.head) }
        }
        board.add(Piece(start: 0, end: .max, done: 0, sink: sink, task: nil, refusal: nil, isPrimary: true), key: key)
        primarySink = sink  // its connection is the attempt's own, counted by the downloader
        var request = request
        request.connections = cap
        start(key, request, sink)
        var headArrived = false
        while !headArrived, let event = await iterator.next() {
            switch event {
            case .head: headArrived = true
            case .ended(_, let error): return single(key, error)
            case .wake: continue  // not split yet: the split asks for the connections
            }
        }
        guard headArrived, board.isActive, let head = sink.head else { return await awaitSingle(key, iterator: &iterator) }
        total = board.total
        validator = head.validator
        headSink = sink
        return nil
    }

    /// Splits the file when the first connection's head qualifies (a length of at least
    /// `threshold`, a strong validator, room for two pieces of `minimum`): the first connection
    /// stops at its piece's end, the other pieces wait on the board, which becomes active.
    private static func split(_ sink: TransferSink, key: Int, board: SegmentBoard, cap: Int, threshold: Int64, minimum: Int64) {
        guard let head = sink.head, head.disposition != .complete, let total = head.expectedLength,
              total >= threshold, head.validator?.isStrong == true else { return }
        let position = sink.fileLength
        let count = min(Int64(cap), (total - position) / minimum)
        guard count >= 2 else { return }
        let size = (total - position) / count
        guard sink.lowerStop(to: position + size) else { return }
        board.setEnd(key, position + size)
        let pending = (1..<count).map { i in
            SegmentCheckpoint(start: position + size * i, end: i == count - 1 ? total : position + size * (i + 1), done: 0)
        }
        board.activate(total: total, pending: pending)
    }

    /// The first connection's end when the file is not split: `.single` with its error.
    private func single(_ key: Int, _ error: (any Error)?) -> SegmentsResult {
        _ = board.remove(key)
        return .single(error)
    }

    /// Waits for the first connection to end (the file is not split) and returns its error.
    private func awaitSingle(
        _ key: Int, iterator: inout AsyncStream<SegmentEvent>.Iterator
    ) async -> SegmentsResult {
        while let event = await iterator.next() {
            if case .ended(_, let error) = event { return single(key, error) }
        }
        for task in board.tasks { await task.value }  // cancelled: the transfer stops
        return single(key, CancellationError())
    }

    /// Books the end of `piece`'s connection; returns how the attempt ends when it does.
    private func ended(_ piece: Piece, error: (any Error)?) async -> AttemptOutcome? {
        var refusal = piece.refusal
        if refusal == nil, !piece.isPrimary, piece.sink.head == nil,
           (error as? DownloadError)?.code == .protocolViolation {
            // The server answered another range than asked for: its ranges are not usable.
            refusal = .rangeIgnored
        }
        if let reason = refusal {
            guard reason == .rangeIgnored, !piece.isPrimary else { return .restart(reason) }
            // The server ignores ranges: the first connection, if it still runs, takes the rest.
            let (cancelled, removed, kept) = board.collapseToPrimary()
            for task in cancelled { await task.value }
            // Their ends find no piece on the board any more: their connections are let go here.
            for _ in 0..<removed { await seam.closed() }
            if kept { return nil }
            // The first connection had ended at its piece's end: one connection fetches the whole
            // file again, over the same bytes (same validator), without a restart.
            if let failure = await launch(SegmentCheckpoint(start: 0, end: total, done: 0), whole: true, counted: takeSpare()) {
                return .failed(failure)
            }
            return nil
        }
        if piece.sink.head != nil { headSink = headSink ?? piece.sink }
        if piece.sink.fileLength >= piece.end {
            board.finish(piece)
            return nil
        }
        if board.isRefused, piece.isPrimary, piece.sink.reachedStop {
            // The first connection stopped at its old end just as the server was seen to ignore
            // ranges: one connection fetches the whole file again, over the same bytes.
            if let failure = await launch(SegmentCheckpoint(start: 0, end: total, done: 0), whole: true, counted: takeSpare()) {
                return .failed(failure)
            }
            return nil
        }
        board.giveBack(piece)
        let failure = DownloadError.wrapping(error ?? DownloadError(
            .connectionLost, "a segment's transfer ended at byte \(piece.position) before its end \(piece.end)", isRetryable: true))
        guard failure.isRetryable || failure.code == .cancelled else { return .failed(failure) }
        // Transient: the range waits for a connection that finishes or a regrown cap
        // (``regrow()``); one connection fewer until then.
        if board.runningCount == 0 { return .failed(failure) }  // the attempt's end tells the governor
        await seam.failed(failure)  // the governor decides whether the origin throttles
        cap = max(1, board.runningCount)
        capChangedAt = seam.now()
        return nil
    }

    /// Compares every overlap window received so far (by `ended`, whose connection just ended,
    /// and by the pieces still running) whose neighbour's bytes are all on disk now with those
    /// bytes; returns `false` at the first window that differs: the ranges came from different
    /// versions of the file (or one was corrupted, such as zeros) although their validator was
    /// the same. A window whose neighbour is not written yet waits for a later call; a window
    /// that cannot be read is compared again later.
    private func seamsAgree(ended: Piece) -> Bool {
        guard window > 0 else { return true }
        if let received = ended.sink.receivedOverlap, !compared.contains(received.start) {
            overlaps[received.start] = received.bytes
        }
        var windows = overlaps.map { (start: $0.key, bytes: $0.value, sink: ended.sink) }
        for sink in board.sinks {
            if let received = sink.receivedOverlap, !compared.contains(received.start), overlaps[received.start] == nil {
                windows.append((received.start, received.bytes, sink))
            }
        }
        guard !windows.isEmpty else { return true }
        let written = board.checkpoints()
        for w in windows where Self.covers(written, w.start, w.start + Int64(w.bytes.count)) {
            // A window that cannot be read back is not a match: better one connection from zero than
            // a seam never compared.
            guard let same = w.sink.fileHolds(w.bytes, at: w.start) else { return false }
            guard same else { return false }
            compared.insert(w.start)
            overlaps[w.start] = nil
        }
        return true
    }

    /// Whether the bytes `lower ..< upper` are on disk by `ranges` (each one's first `done` bytes).
    static func covers(_ ranges: [SegmentCheckpoint], _ lower: Int64, _ upper: Int64) -> Bool {
        var reached = lower
        for range in ranges.sorted(by: { $0.start < $1.start }) where range.done > 0 {
            if range.start > reached { break }
            reached = max(reached, range.start + range.done)
            if reached >= upper { return true }
        }
        return reached >= upper
    }

    /// On a wake (the downloader allows more connections than run): raises ``cap`` by one when
    /// a transient failure lowered it and a sample window has passed since it last changed, as
    /// the host governor grows a throttled origin's target back.
    private func regrow() {
        guard cap != .max else { return }
        let now = seam.now()
        guard now - capChangedAt >= HostConnections.sampleWindow else { return }
        cap = min(cap, board.runningCount) + 1  // one more than run, not more than that per window
        capChangedAt = now
    }

    /// Opens connections while there is work and the attempt has or gets them: waiting ranges
    /// first, then halves of the largest pieces left. A ``spare`` connection is taken first; any
    /// other is granted and counted in one step (``SegmentSeam/reserve``), so two attempts to one
    /// host never share the same room. Returns an outcome when a connection cannot be opened.
    private func fill() async -> AttemptOutcome? {
        let minimum = attempt.minimumSegmentSize
        while board.runningCount < cap, board.hasWork(minimum: minimum) {
            let tookSpare = takeSpare()
            if !tookSpare {
                guard let granted = await seam.reserve(board.runningCount) else { break }
                allowed = granted
            }
            let range: SegmentCheckpoint
            if let waiting = board.takePending() {
                range = waiting
            } else if let half = board.steal(minimum: minimum) {
                range = SegmentCheckpoint(start: half.start, end: half.end, done: 0)
            } else {
                // The pieces moved on meanwhile: nothing left to cut.
                if tookSpare { spare += 1 } else { await seam.closed() }
                break
            }
            if let failure = await launch(range, connections: min(allowed, cap), counted: true) { return .failed(failure) }
        }
        return nil
    }

    /// Takes a ``spare`` connection for a launch, when there is one (`false`: none, the launch
    /// counts its connection itself).
    private func takeSpare() -> Bool {
        guard spare > 0 else { return false }
        spare -= 1
        return true
    }

    /// Lets go of the counted connections no range took (``spare``). The downloader lets go of
    /// its extra connections first; the attempt's first one stays counted until the attempt ends.
    private func releaseSpares() async {
        while spare > 0 {
            spare -= 1
            await seam.closed()
        }
    }

    /// Opens a connection for the bytes of `range` not done yet: a ranged request conditional on
    /// the validator, into a segment sink that refuses any other version or a restart.
    ///
    /// With `whole` the request asks for the whole file (no range, no validator; the head must
    /// still show the validator): the one connection left when a server ignores ranges.
    /// `connections` is what the attempt may use now (``TransferRequest/connections``). `counted`:
    /// the connection was granted and counted already (``SegmentSeam/reserve``); otherwise it is
    /// counted here without asking (``SegmentSeam/opened``).
    private func launch(_ range: SegmentCheckpoint, whole: Bool = false, connections: Int = 1, counted: Bool = false) async -> DownloadError? {
        let key = board.reserveKey()
        // A range after the first one asks for the overlap window before its start as well: those
        // bytes are compared with its neighbour's (``seamsAgree(ended:)``), not written.
        let overlap = !whole && range.done == 0 && window > 0 && range.start >= window ? window : 0
        let offset = range.start + range.done - overlap
        let board = self.board, validator = self.validator, total = self.total
        let id = attempt.id, expectedSize = attempt.options.expectedSize, delegate = attempt.delegate
        let sink: TransferSink
        do {
            sink = try TransferSink(segmentOf: attempt.partPath, offset: offset, end: range.end, overlap: overlap, startsWriteback: attempt.synchronize,
                                    pacing: attempt.bandwidth) { head in
                // The status first: a transport reports any answer to a range but 206 as a
                // restart (HTTP), and a 429 or 503 is the server asking for fewer connections
                // (a transient failure), not a sign that it ignores ranges.
                try HeadCheck.checkStatus(head, id: id, delegate: delegate)
                switch head.disposition {
                case .resumed: break
                case .restarted(let reason):
                    board.refuse(key, reason)
                    throw DownloadError(.protocolViolation, "a segment's request was answered with the whole file (\(reason))")
                case .complete:
                    board.refuse(key, .rangeMismatch)
                    throw DownloadError(.protocolViolation, "a segment's request was answered as complete")
                }
                if head.validator != validator || (head.expectedLength.map { $0 != total } ?? false) {
                    board.refuse(key, .validatorChanged)
                    throw DownloadError(.protocolViolation, "a segment's answer belongs to another version of the file")
                }
                try HeadCheck.checkSize(head, expectedSize: expectedSize)
            }
        } catch {
            if counted { await seam.closed() }
            return DownloadError.wrapping(error)
        }
        var request = TransferRequest(
            downloadID: id, url: attempt.url, offset: offset, end: whole ? nil : range.end, validator: whole ? nil : validator,
            expectedLength: whole ? nil : total,
            options: options, attempt: attempt.number, authenticate: attempt.authenticator)
        request.connections = whole ? 1 : connections
        board.add(Piece(start: range.start, end: range.end, done: range.done, sink: sink, task: nil, refusal: nil, isPrimary: whole),
                  key: key)
        handle.sink.withLock { if $0 == nil { $0 = sink } }
        if !counted { await seam.opened() }
        start(key, request, sink)
        return nil
    }

    /// Runs the transfer of piece `key` in a task of its own; its end is an event.
    private func start(_ key: Int, _ request: TransferRequest, _ sink: TransferSink) {
        let transport = attempt.transport, events = self.events
        let task = Task {
            do {
                try await transport.transfer(request, into: sink)
                events.yield(.ended(key: key, error: nil))
            } catch {
                events.yield(.ended(key: key, error: error))
            }
        }
        board.setTask(task, key: key)
    }

    /// Stops every connection still running, waits for them, and returns `outcome`.
    private func abort(_ outcome: AttemptOutcome) async -> AttemptOutcome {
        for task in board.cancelAll() { await task.value }
        board.sealAll()
        return outcome
    }

    /// Every byte is done: validation and the move, through a sink of the attempt.
    private func finish() async -> AttemptOutcome {
        guard let sink = headSink ?? handle.currentSink, sink.head != nil else {
            return .failed(DownloadError(.protocolViolation, "the segments finished without a head"))
        }
        return await attempt.finish(sink: sink, segmentedLength: total)
    }
}
