/// The downloads waiting for a slot: a binary heap ordered by priority (higher first), then by
/// queue order (FIFO). Removal is lazy: the caller skips popped ids that are no longer waiting.
struct WaitingQueue: Sendable {
    private struct Item: Sendable {
        var priority: Int
        var order: Int64
        var id: String
        func runsBefore(_ other: Item) -> Bool {
            priority != other.priority ? priority > other.priority : order < other.order
        }
    }

    private var heap: [Item] = []

    /// Whether nothing is queued (not even ids that stopped waiting since they were pushed).
    var isEmpty: Bool { heap.isEmpty }

    mutating func push(id: String, priority: Int, order: Int64) {
        heap.append(Item(priority: priority, order: order, id: id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].runsBefore(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (id: String, order: Int64)? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var best = parent
                if left < heap.count, heap[left].runsBefore(heap[best]) { best = left }
                if right < heap.count, heap[right].runsBefore(heap[best]) { best = right }
                if best == parent { break }
                heap.swapAt(parent, best)
                parent = best
            }
        }
        return (top.id, top.order)
    }
}
