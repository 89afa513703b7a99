/// The downloads waiting for a slot, in the order they start: by priority (higher first), then
/// by queue order (FIFO). Downloads whose origin cannot open a connection now (at its cap or
/// held) are *parked* in a list of their origin (``park(id:priority:order:origin:)``), so that
/// the scheduler does not pop them again on every pass; ``pop(allowing:)`` takes the first
/// download of the main list and of the parked lists whose origin is allowed, so a parked
/// download keeps its place. Removal is lazy: the caller skips popped ids that are no longer
/// waiting.
struct WaitingQueue: Sendable {
    private var main = Heap()
    private var parked: [String: Heap] = [:]
    private var parkedCount = 0
    /// The item pushed that runs last, since the queue was last empty: every queued item runs no
    /// later than it (the downloader leaves in the store only downloads that run after it).
    private var last: Item?

    /// Whether nothing is queued (not even ids that stopped waiting since they were pushed).
    var isEmpty: Bool { main.isEmpty && parked.isEmpty }

    /// How many ids are queued, parked ones included (counting ids that stopped waiting since
    /// they were pushed).
    var count: Int { main.count + parkedCount }

    /// Whether a download of `priority` and `order` runs after everything queued (and after
    /// everything pushed since the queue was last empty); `false` when the queue is empty.
    func runsAfterAll(priority: Int, order: Int64, id: String) -> Bool {
        guard let last, !isEmpty else { return false }
        return last.runsBefore(Item(priority: priority, order: order, id: id))
    }

    /// Whether downloads are parked for their origin.
    var hasParked: Bool { !parked.isEmpty }

    mutating func push(id: String, priority: Int, order: Int64) {
        let item = Item(priority: priority, order: order, id: id)
        if isEmpty || last.map({ $0.runsBefore(item) }) ?? true { last = item }
        main.push(item)
    }

    /// Puts `id` aside in the list of `origin`, until ``pop(allowing:)`` finds the origin allowed.
    mutating func park(id: String, priority: Int, order: Int64, origin: String) {
        let item = Item(priority: priority, order: order, id: id)
        if isEmpty || last.map({ $0.runsBefore(item) }) ?? true { last = item }
        parked[origin, default: Heap()].push(item)
        parkedCount += 1
    }

    /// Takes the download that runs first among the main list and the parked lists whose origin
    /// `allowing` accepts (asked once per parked origin).
    mutating func pop(allowing: (String) -> Bool) -> (id: String, order: Int64)? {
        var best = main.first
        var from: String?
        for (origin, heap) in parked {
            guard let head = heap.first, best.map({ head.runsBefore($0) }) ?? true, allowing(origin) else { continue }
            best = head
            from = origin
        }
        guard best != nil else { return nil }
        let item: Item?
        if let from {
            item = parked[from]?.pop()
            parkedCount -= 1
            if parked[from]?.isEmpty == true { parked[from] = nil }
        } else {
            item = main.pop()
        }
        return item.map { ($0.id, $0.order) }
    }

    private struct Item: Sendable {
        var priority: Int
        var order: Int64
        var id: String
        func runsBefore(_ other: Item) -> Bool {
            priority != other.priority ? priority > other.priority : (order, id) < (other.order, other.id)
        }
    }

    /// A binary heap of items, the one that runs first on top.
    private struct Heap: Sendable {
        private var items: [Item] = []

        var isEmpty: Bool { items.isEmpty }
        var count: Int { items.count }
        var first: Item? { items.first }

        mutating func push(_ item: Item) {
            items.append(item)
            var child = items.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard items[child].runsBefore(items[parent]) else { break }
                items.swapAt(child, parent)
                child = parent
            }
        }

        mutating func pop() -> Item? {
            guard !items.isEmpty else { return nil }
            let top = items[0]
            let last = items.removeLast()
            if !items.isEmpty {
                items[0] = last
                var parent = 0
                while true {
                    let left = 2 * parent + 1, right = left + 1
                    var best = parent
                    if left < items.count, items[left].runsBefore(items[best]) { best = left }
                    if right < items.count, items[right].runsBefore(items[best]) { best = right }
                    if best == parent { break }
                    items.swapAt(parent, best)
                    parent = best
                }
            }
            return top
        }
    }
}
