@testable import FileDownload
import Testing

/// The scheduling part of the downloader on its own: which download starts next, by slots,
/// priority, queue order and connections per origin. No downloader, no transport, no clock.
@Suite("Scheduler: which download starts next")
struct SchedulerTests {
    /// A waiting download as the actor would describe it.
    struct Waiting {
        var priority = 0
        var origin: String? = "http://a:80"
    }

    /// Queues `downloads` (id, priority, origin) in this order and returns what a pass with
    /// `slots` starts, in order; the scheduler is left as the pass left it.
    func pass(_ scheduler: inout Scheduler, slots: Int, now: Duration = .zero,
              waiting: [String: Waiting], orders: inout [String: Int64]) -> [String] {
        var started: [String] = []
        var pass = scheduler.beginPass(now: now)
        while let id = scheduler.next(in: &pass, slots: slots, waiting: { id, order in
            guard let w = waiting[id], orders[id] == order, !started.contains(id) else { return nil }
            return Scheduler.Candidate(priority: w.priority, origin: w.origin)
        }) {
            started.append(id)
            scheduler.started(id)
            if let origin = waiting[id]?.origin { scheduler.opened(id, origin: origin, bytesOnDisk: 0) }
        }
        return started
    }

    func enqueue(_ scheduler: inout Scheduler, _ ids: [(String, Int)], orders: inout [String: Int64]) {
        for (id, priority) in ids {
            let order = scheduler.takeQueueOrder()
            orders[id] = order
            scheduler.queue.push(id: id, priority: priority, order: order)
        }
    }

    @Test("priority first, then the order they were queued in, up to the slots")
    func priorityThenFIFO() {
        var s = Scheduler(maxConnectionsPerHost: 10)
        var orders: [String: Int64] = [:]
        enqueue(&s, [("low1", 0), ("high", 5), ("low2", 0), ("mid", 1)], orders: &orders)
        let waiting = ["low1": Waiting(), "high": Waiting(priority: 5), "low2": Waiting(), "mid": Waiting(priority: 1)]
        #expect(pass(&s, slots: 3, waiting: waiting, orders: &orders) == ["high", "mid", "low1"])
        #expect(s.running == ["high", "mid", "low1"])
        #expect(pass(&s, slots: 3, waiting: waiting, orders: &orders).isEmpty, "no slot free")
        s.ended("high")
        _ = s.closed("high")
        #expect(pass(&s, slots: 3, waiting: waiting, orders: &orders) == ["low2"])
    }

    @Test("a download no longer waiting at its place is skipped (removal is lazy)")
    func staleEntriesSkipped() {
        var s = Scheduler(maxConnectionsPerHost: 10)
        var orders: [String: Int64] = [:]
        enqueue(&s, [("a", 0), ("b", 0)], orders: &orders)
        orders["a"] = 99  // re-queued elsewhere since: the old place is stale
        #expect(pass(&s, slots: 4, waiting: ["a": Waiting(), "b": Waiting()], orders: &orders) == ["b"])
        #expect(s.queue.isEmpty)
    }

    @Test("an origin at its cap parks its downloads, keeping their place; another origin goes ahead")
    func hostCapParks() {
        var s = Scheduler(maxConnectionsPerHost: 1)
        var orders: [String: Int64] = [:]
        enqueue(&s, [("a1", 0), ("a2", 0), ("b1", 0), ("a3", 0)], orders: &orders)
        let waiting = ["a1": Waiting(), "a2": Waiting(), "b1": Waiting(origin: "http://b:80"), "a3": Waiting()]
        #expect(pass(&s, slots: 4, waiting: waiting, orders: &orders) == ["a1", "b1"])
        #expect(s.queue.hasParked)
        #expect(s.hosts.openCount(of: "http://a:80") == 1)
        s.ended("a1")
        #expect(s.closed("a1") == "http://a:80")
        #expect(pass(&s, slots: 4, waiting: waiting, orders: &orders) == ["a2"], "the parked one first, in its place")
    }

    @Test("a download without an origin (a local file) is never held by a cap")
    func noOrigin() {
        var s = Scheduler(maxConnectionsPerHost: 1)
        var orders: [String: Int64] = [:]
        enqueue(&s, [("f1", 0), ("f2", 0)], orders: &orders)
        let waiting = ["f1": Waiting(origin: nil), "f2": Waiting(origin: nil)]
        #expect(pass(&s, slots: 2, waiting: waiting, orders: &orders) == ["f1", "f2"])
    }

    @Test("a Retry-After hold keeps the origin's downloads waiting until it ends, and the tick is told")
    func retryAfterHold() {
        var s = Scheduler(maxConnectionsPerHost: 4)
        var orders: [String: Int64] = [:]
        s.hosts.throttled(origin: "http://a:80", retryAfter: .seconds(10), now: .zero)
        enqueue(&s, [("a1", 0)], orders: &orders)
        #expect(pass(&s, slots: 2, now: .seconds(1), waiting: ["a1": Waiting()], orders: &orders).isEmpty)
        #expect(s.waitsForHost(now: .seconds(1)))
        #expect(pass(&s, slots: 2, now: .seconds(11), waiting: ["a1": Waiting()], orders: &orders) == ["a1"])
    }

    @Test("an attempt's segments count for its origin until the attempt closes")
    func segmentsCount() {
        var s = Scheduler(maxConnectionsPerHost: 4)
        s.started("a")
        s.opened("a", origin: "http://a:80", bytesOnDisk: 0)
        s.segmentOpened("a")
        #expect(s.hosts.openCount(of: "http://a:80") == 2)
        #expect(s.connections(of: "a") == 2)
        #expect(s.closed("a") == "http://a:80")
        #expect(s.hosts.openCount(of: "http://a:80") == 0)
        #expect(s.closed("a") == nil)
        let afterEnd = s.segmentClosed("a")
        #expect(!afterEnd, "nothing counted once the attempt closed")
    }

    @Test("a segmented attempt is granted connections up to its own number within its origin's cap, each counted until it closes")
    func segmentGrants() {
        var s = Scheduler(maxConnectionsPerHost: 3)
        let origin = "http://a:80"
        s.started("a")
        s.opened("a", origin: origin, bytesOnDisk: 0)
        let slots = s.segmentSlots(for: "a", own: 4, adaptive: false, now: .zero)
        #expect(slots == 3, "the cap of 3 wins over its own 4")
        let grants = (1...3).map { s.reserveSegment(for: "a", running: $0, own: 4, adaptive: false, now: .zero) }
        #expect(grants == [3, 3, nil], "the third is refused: the origin is at its cap")
        #expect(s.hosts.openCount(of: origin) == 3)
        #expect(!s.mayAddSegments(of: "a", own: 4, adaptive: false, now: .zero))
        let closed = s.segmentClosed("a")
        #expect(closed)
        #expect(s.hosts.openCount(of: origin) == 2 && s.connections(of: "a") == 2)
        #expect(s.mayAddSegments(of: "a", own: 4, adaptive: false, now: .zero), "room again: the tick may wake it")
        #expect(!s.mayAddSegments(of: "a", own: 2, adaptive: false, now: .zero), "not beyond its own number")
        let local = s.reserveSegment(for: "b", running: 1, own: 4, adaptive: false, now: .zero)
        #expect(local == 4, "an attempt counted against no origin (a local file) may use its own number")
        #expect(s.connections(of: "b") == 1 && s.hosts.openCount(of: origin) == 2, "and counts nothing")
    }

    @Test("queue orders saturate instead of overflowing")
    func queueOrderSaturates() {
        var s = Scheduler(maxConnectionsPerHost: 1)
        s.nextQueueOrder = .max
        #expect(s.takeQueueOrder() == .max)
        #expect(s.takeQueueOrder() == .max)
    }
}
