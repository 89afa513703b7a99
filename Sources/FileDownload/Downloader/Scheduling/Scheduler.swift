/// The scheduling part of the ``Downloader``: it owns the waiting queue (priority, then start
/// order), what is known of the waiting downloads left in a paging store, the slots taken by
/// running attempts, and the connections open to each origin (``HostConnections``: caps,
/// adaptive targets, `Retry-After` holds), and answers which download starts next.
///
/// It does no I/O and reads no clock: the time comes in as an argument, and what it needs to
/// know of a download (still waiting at that place in the queue? its priority and origin?) the
/// actor answers through a closure. The actor starts the attempts it names, and tells it of
/// attempts that open and close connections.
struct Scheduler {
    /// The downloads in memory waiting for a slot.
    var queue = WaitingQueue()
    /// Waiting downloads left in a paging store (see `Downloader+Paging.swift`).
    var pages = WaitingPages()
    /// The connections open to each origin, their adaptive targets and holds.
    var hosts: HostConnections
    /// The order the next queued download gets (FIFO within a priority).
    var nextQueueOrder: Int64 = 0
    /// Ids with an attempt running: each takes one of the downloader's slots.
    var running: Set<String> = []
    /// The origin each running attempt counts against, the bytes of it counted so far, and
    /// whether its rate says what the origin gives (``HostConnections/opened(origin:measured:)``).
    var attemptOrigins: [String: (origin: String, bytes: Int64, measured: Bool)] = [:]
    /// The connections each segmented attempt opened beyond its first (counted for its origin
    /// in ``hosts`` until they close or the attempt ends).
    var segmentExtras: [String: Int] = [:]

    /// A scheduler with at most `maxConnectionsPerHost` connections to one host unless set
    /// otherwise per host.
    init(maxConnectionsPerHost: Int) {
        hosts = HostConnections(cap: maxConnectionsPerHost)
    }

    /// What the actor says of a download taken from the queue that still waits there.
    struct Candidate {
        /// Its priority (a download parked for its origin keeps its place by it).
        var priority: Int
        /// The origin its next attempt connects to; `nil` for one not counted (a local file).
        var origin: String?
    }

    /// One pass of choosing downloads to start (``beginPass(now:)``, then ``next(in:slots:waiting:)``
    /// until it answers `nil`).
    struct Pass {
        let now: Duration
        /// The origins found unable to open a connection in this pass.
        fileprivate var blocked: Set<String> = []
    }

    /// The queue order for a download queued now; it stays at the largest value instead of
    /// overflowing (a stored record can carry any value), and ties are broken by id.
    mutating func takeQueueOrder() -> Int64 {
        defer { nextQueueOrder = nextQueueOrder.successorSaturating }
        return nextQueueOrder
    }

    /// Starts a pass at `now`: origins whose throttle has worn off recover first.
    mutating func beginPass(now: Duration) -> Pass {
        hosts.recover(now: now)
        return Pass(now: now)
    }

    /// The download that starts next, while fewer than `slots` attempts run: the first in
    /// queue order whose origin may open a connection. `waiting` answers for a popped id and
    /// its queue order whether that download still waits at that place (`nil`: skipped, as
    /// removal is lazy). A download whose origin may not open a connection now is parked for
    /// that origin, keeping its place, and the origin is marked wanted (unless a `Retry-After`
    /// holds it). The caller starts the download (``started(_:)``) before asking again.
    mutating func next(in pass: inout Pass, slots: Int, waiting: (String, Int64) -> Candidate?) -> String? {
        let now = pass.now
        while running.count < slots,
              let popped = queue.pop(allowing: { origin in hosts.mayOpen(origin: origin, now: now) }) {
            guard let candidate = waiting(popped.id, popped.order) else { continue }
            if let origin = candidate.origin, !hosts.mayOpen(origin: origin, now: now) {
                if pass.blocked.insert(origin).inserted, hosts.holdEnd(of: origin, now: now) == nil {
                    hosts.wanted(origin: origin)
                }
                queue.park(id: popped.id, priority: candidate.priority, order: popped.order, origin: origin)
                continue
            }
            return popped.id
        }
        return nil
    }

    /// The attempt of `id` takes a slot.
    mutating func started(_ id: String) {
        running.insert(id)
    }

    /// The attempt of `id` gave its slot back.
    mutating func ended(_ id: String) {
        running.remove(id)
    }

    /// The attempt of `id` opens its connection to `origin` (from `bytesOnDisk` on); `measured`
    /// `false` when its download's rate says nothing of what the origin gives (a number of
    /// connections asked for, or a rate limit), for this connection and its segments'.
    mutating func opened(_ id: String, origin: String, bytesOnDisk: Int64, measured: Bool = true) {
        hosts.opened(origin: origin, measured: measured)
        attemptOrigins[id] = (origin, bytesOnDisk, measured)
    }

    /// The attempt of `id` ended: its connection, and any of its segments' still counted, no
    /// longer count. Returns the origin it counted against, if any.
    mutating func closed(_ id: String) -> String? {
        let extras = segmentExtras.removeValue(forKey: id) ?? 0
        guard let counted = attemptOrigins.removeValue(forKey: id) else { return nil }
        for _ in 0...extras { hosts.closed(origin: counted.origin, measured: counted.measured) }
        return counted.origin
    }

    /// The origin the running attempt of `id` counts against; `nil` when it counts against none
    /// (a local file) or does not run.
    func origin(of id: String) -> String? {
        attemptOrigins[id]?.origin
    }

    /// The connections the running attempt of `id` counts: its first and its segments' extra ones.
    func connections(of id: String) -> Int {
        1 + segmentExtras[id, default: 0]
    }

    /// The connections the attempt of `id` may use now, at least 1: `own` (what its options
    /// allow) within what the governor leaves for its origin (``HostConnections/extraAllowed(origin:now:adaptive:)``:
    /// the adaptive target when `adaptive`, else the cap), nothing more while a `Retry-After`
    /// holds it. An origin with no room for an attempt that wants more is marked wanted (unless
    /// held). An attempt that counts against no origin may use `own`.
    mutating func segmentSlots(for id: String, own: Int, adaptive: Bool, now: Duration) -> Int {
        guard let origin = origin(of: id) else { return own }
        let using = connections(of: id)
        let room = hosts.extraAllowed(origin: origin, now: now, adaptive: adaptive)
        if room == 0, using < own, hosts.holdEnd(of: origin, now: now) == nil { hosts.wanted(origin: origin) }
        return max(1, min(own, using + room))
    }

    /// Grants the attempt of `id` (running `running` connections) one more when
    /// ``segmentSlots(for:own:adaptive:now:)`` allows more than it runs and more than it counts,
    /// and counts it in the same step (``segmentOpened(_:)``); returns the slots, or `nil` when
    /// not granted. Both, because they can differ: the attempt's first connection counts until
    /// the attempt ends, also after it finished its piece.
    mutating func reserveSegment(for id: String, running: Int, own: Int, adaptive: Bool, now: Duration) -> Int? {
        let slots = segmentSlots(for: id, own: own, adaptive: adaptive, now: now)
        guard running < slots, connections(of: id) < slots else { return nil }
        segmentOpened(id)
        return slots
    }

    /// A connection of the segmented attempt of `id` beyond its first opens: it counts for the
    /// attempt's origin (nothing for an attempt without one).
    mutating func segmentOpened(_ id: String) {
        guard let counted = attemptOrigins[id] else { return }
        hosts.opened(origin: counted.origin, measured: counted.measured)
        segmentExtras[id, default: 0] += 1
    }

    /// A counted connection of the segmented attempt of `id` ended; returns whether one was
    /// counted (its origin has room again). The attempt's first connection is let go by
    /// ``closed(_:)`` only.
    mutating func segmentClosed(_ id: String) -> Bool {
        guard let counted = attemptOrigins[id], let extras = segmentExtras[id], extras > 0 else { return false }
        hosts.closed(origin: counted.origin, measured: counted.measured)
        segmentExtras[id] = extras > 1 ? extras - 1 : nil
        return true
    }

    /// Whether the segmented attempt of `id` could open more connections now: it counts fewer
    /// than `own` and its origin leaves room (the tick then wakes it).
    func mayAddSegments(of id: String, own: Int, adaptive: Bool, now: Duration) -> Bool {
        guard let origin = origin(of: id) else { return false }
        return connections(of: id) < own && hosts.extraAllowed(origin: origin, now: now, adaptive: adaptive) > 0
    }

    /// The tick's sample of the running attempt of `id`: the bytes it received since the last
    /// one count for its origin's throughput.
    mutating func record(_ id: String, fileLength: Int64, now: Duration) {
        guard let counted = attemptOrigins[id] else { return }
        attemptOrigins[id]?.bytes = fileLength
        hosts.record(origin: counted.origin, bytes: max(0, fileLength - counted.bytes), now: now)
    }

    /// Whether a download waits in the queue for a held origin (so the tick must go on to start
    /// it when the hold ends).
    func waitsForHost(now: Duration) -> Bool {
        !queue.isEmpty && hosts.holdsAny(now: now)
    }
}
