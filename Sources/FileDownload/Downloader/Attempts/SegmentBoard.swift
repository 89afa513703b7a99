import Synchronization

/// The segments of one attempt of a download fetched over several connections: which byte
/// ranges are done, which run (each with its sink and task) and which wait for a connection.
///
/// The attempt's coordinator (``Attempt/runSegments(options:seam:primary:)``)
/// changes it; the downloader reads it on every tick for progress, idle timeout and checkpoints
/// (``received``, ``activity``, ``checkpoints()``). Until ``activate(total:)`` it is inactive and
/// the attempt is an ordinary one-connection attempt.
final class SegmentBoard: Sendable {
    /// A range being fetched by one connection.
    struct Piece {
        /// The first byte of the range.
        var start: Int64
        /// Where it ends now (exclusive); lowered when another connection takes the upper half.
        var end: Int64
        /// The bytes from ``start`` already on disk when the connection was opened.
        var done: Int64
        var sink: TransferSink
        var task: Task<Void, Never>?
        /// What the piece's head refused (a restart), if it did.
        var refusal: RestartReason?
        /// The download's first connection (made without an end; its stop may be lifted).
        var isPrimary: Bool

        /// The next byte the connection writes, within the range.
        var position: Int64 { min(end, max(start + done, sink.fileLength)) }
    }

    private struct State {
        var active = false
        var total: Int64 = 0
        var pieces: [Int: Piece] = [:]
        var pending: [SegmentCheckpoint] = []
        var finished: [SegmentCheckpoint] = []
        var nextKey = 0
        var cancelled = false
        /// Activity of the sinks of pieces that ended (``activity`` never goes down).
        var activityBase: UInt64 = 0
        var refused = false
    }

    private let state = Mutex(State())

    /// Whether the attempt is split into segments.
    var isActive: Bool { state.withLock { $0.active } }

    /// The length of the file, once active.
    var total: Int64 { state.withLock { $0.total } }

    /// Makes the board active for a file of `total` bytes, with `finished` ranges done and
    /// `pending` ranges waiting (their `done` bytes on disk).
    func activate(total: Int64, finished: [SegmentCheckpoint] = [], pending: [SegmentCheckpoint] = []) {
        state.withLock { s in
            s.active = true
            s.total = total
            s.finished = finished
            s.pending = pending
        }
    }

    /// A key for a piece about to be added (its sink's head check refers to it).
    func reserveKey() -> Int {
        state.withLock { s in
            defer { s.nextKey += 1 }
            return s.nextKey
        }
    }

    /// Adds a running piece under `key`.
    func add(_ piece: Piece, key: Int) {
        state.withLock { $0.pieces[key] = piece }
    }

    /// Keeps the piece's task; cancels it at once when the board was cancelled meanwhile.
    func setTask(_ task: Task<Void, Never>, key: Int) {
        let cancel = state.withLock { s in
            s.pieces[key]?.task = task
            return s.cancelled
        }
        if cancel { task.cancel() }
    }

    /// Moves the end of piece `key` (its sink's stop was moved there).
    func setEnd(_ key: Int, _ end: Int64) {
        state.withLock { $0.pieces[key]?.end = end }
    }

    /// Whether the server ignored a range request of this attempt (``collapseToPrimary()``): no
    /// further connection is opened, and the download's next attempts use one connection.
    var isRefused: Bool { state.withLock { $0.refused } }

    /// Seals the sinks of the pieces still listed (their connections have ended).
    func sealAll() {
        for sink in state.withLock({ $0.pieces.values.map(\.sink) }) { sink.seal() }
    }

    /// Records that the head of piece `key` was refused with `reason`.
    func refuse(_ key: Int, _ reason: RestartReason) {
        state.withLock { $0.pieces[key]?.refusal = reason }
    }

    /// Takes the piece `key` off the running ones (its connection ended).
    func remove(_ key: Int) -> Piece? {
        state.withLock { s in
            guard let piece = s.pieces.removeValue(forKey: key) else { return nil }
            s.activityBase &+= piece.sink.activityCount
            return piece
        }
    }

    /// Books `piece` as complete.
    func finish(_ piece: Piece) {
        state.withLock { $0.finished.append(SegmentCheckpoint(start: piece.start, end: piece.end, done: piece.end - piece.start)) }
    }

    /// Books what `piece` fetched as done and puts the rest of its range back to wait for a
    /// connection.
    func giveBack(_ piece: Piece) {
        let position = piece.position
        state.withLock { s in
            if position > piece.start {
                s.finished.append(SegmentCheckpoint(start: piece.start, end: position, done: position - piece.start))
            }
            if position < piece.end { s.pending.append(SegmentCheckpoint(start: position, end: piece.end, done: 0)) }
        }
    }

    /// The waiting range with the lowest start, taken off the list.
    func takePending() -> SegmentCheckpoint? {
        state.withLock { s in
            guard let index = s.pending.indices.min(by: { s.pending[$0].start < s.pending[$1].start }) else { return nil }
            return s.pending.remove(at: index)
        }
    }

    /// Whether a new connection would have work: a range waiting, or a running piece that
    /// ``steal(minimum:)`` could cut now.
    func hasWork(minimum: Int64) -> Bool {
        state.withLock { s in
            !s.pending.isEmpty || s.pieces.values.contains { $0.sink.stop != nil && $0.end - $0.position >= 2 * max(1, minimum) }
        }
    }

    /// Work stealing: the running piece with the most bytes left is cut at the middle of what it
    /// has left, when both halves keep at least `minimum` bytes; returns the upper half, now no
    /// piece's, for a new connection.
    func steal(minimum: Int64) -> (start: Int64, end: Int64)? {
        state.withLock { s in
            let candidates = s.pieces.filter { $0.value.sink.stop != nil }
            guard let (key, piece) = candidates.max(by: { $0.value.end - $0.value.position < $1.value.end - $1.value.position })
            else { return nil }
            let left = piece.end - piece.position
            guard left >= 2 * max(1, minimum) else { return nil }
            let middle = piece.position + left / 2
            guard piece.sink.lowerStop(to: middle) else { return nil }
            let end = piece.end
            s.pieces[key]?.end = middle
            return (middle, end)
        }
    }

    /// The connection of the first piece goes on to the end of the file (the server ignores
    /// ranges): every other piece is cancelled and forgotten, nothing waits, nothing is done
    /// (the first connection, or a new one from byte 0, fetches everything). Returns the tasks
    /// cancelled, how many pieces were forgotten (each one connection the caller no longer
    /// counts), and `false` in `kept` when no first connection runs any more.
    func collapseToPrimary() -> (cancelled: [Task<Void, Never>], removed: Int, kept: Bool) {
        state.withLock { s in
            s.refused = true
            var tasks: [Task<Void, Never>] = []
            var removed = 0
            var kept = false
            for (key, piece) in s.pieces {
                if piece.isPrimary, !piece.sink.reachedStop {
                    piece.sink.liftStop()
                    s.pieces[key]?.end = s.total
                    kept = true
                } else if !piece.isPrimary {
                    s.activityBase &+= piece.sink.activityCount
                    s.pieces[key] = nil
                    removed += 1
                    piece.sink.seal()
                    if let task = piece.task {
                        task.cancel()
                        tasks.append(task)
                    }
                }
            }
            s.pending = []
            s.finished = []
            return (tasks, removed, kept)
        }
    }

    /// Cancels every running piece's task (and those added later); returns them to be awaited.
    func cancelAll() -> [Task<Void, Never>] {
        state.withLock { s in
            s.cancelled = true
            return s.pieces.values.compactMap(\.task)
        }.map { task in
            task.cancel()
            return task
        }
    }

    /// The sinks of the running pieces.
    var sinks: [TransferSink] { state.withLock { $0.pieces.values.map(\.sink) } }

    /// The tasks of the running pieces.
    var tasks: [Task<Void, Never>] { state.withLock { $0.pieces.values.compactMap(\.task) } }

    /// How many connections run.
    var runningCount: Int { state.withLock { $0.pieces.count } }

    /// Whether every byte of the file is done: nothing runs, nothing waits.
    var isComplete: Bool {
        state.withLock { s in s.pieces.isEmpty && s.pending.isEmpty && s.finished.bytesDone >= s.total }
    }

    /// The bytes on disk: done ranges, running pieces and what the waiting ranges hold.
    var received: Int64 {
        state.withLock { s in
            s.finished.bytesDone + s.pending.bytesDone
                + s.pieces.values.reduce(0) { $0 + ($1.position - $1.start) }
        }
    }

    /// Increases with every head and write of any of the attempt's connections.
    var activity: UInt64 {
        state.withLock { s in s.pieces.values.reduce(s.activityBase) { $0 &+ $1.sink.activityCount } }
    }

    /// Every range of the file with the bytes of it on disk, by start: what a checkpoint stores
    /// and a later attempt continues from. Read the sinks' lengths before flushing them.
    func checkpoints() -> [SegmentCheckpoint] {
        state.withLock { s in
            let running = s.pieces.values.map { SegmentCheckpoint(start: $0.start, end: $0.end, done: $0.position - $0.start) }
            return (s.finished + s.pending + running).sorted { $0.start < $1.start }
        }
    }
}
