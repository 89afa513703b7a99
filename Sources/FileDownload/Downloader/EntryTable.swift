/// The downloader's entries by id, with their sum kept as they change: ``TotalProgress`` over
/// thousands of downloads costs a pass over the few that run, not over all (a pass over all on
/// every completion made 10,000 downloads quadratic; see docs/benchmarks.md).
///
/// An entry with an attempt (or in state `downloading`) is *live*: its bytes move without the
/// table seeing it, so it is summed when the total is asked for. Every other entry's share is
/// added to ``settled`` when it is stored and taken out when it changes or goes, through the
/// subscript (its `_modify` sees the entry before and after every change made through it).
struct EntryTable {
    private var storage: [String: DownloadEntry] = [:]
    /// Ids of the live entries.
    private(set) var live: Set<String> = []
    /// The sum over the entries that are not live.
    private(set) var settled = Share()

    /// What one entry adds to the total: integers only, so that adding and taking out are exact.
    struct Share: Equatable {
        var receivedBytes: Int64 = 0
        var expectedBytes: Int64 = 0
        var receivedOfKnownSize: Int64 = 0
        var unknownSizeCount = 0
        var activeCount = 0

        init() {}

        /// The share of `e` (none for a cancelled download).
        init(_ e: DownloadEntry) {
            guard e.state != .cancelled else { return }
            let p = e.progress()
            receivedBytes = p.receivedBytes
            if let expected = p.expectedBytes {
                expectedBytes = expected
                receivedOfKnownSize = min(p.receivedBytes, expected)
            } else if e.state.isActive {
                unknownSizeCount = 1
            }
            if e.state.isActive { activeCount = 1 }
        }

        static func += (a: inout Share, b: Share) {
            a.receivedBytes &+= b.receivedBytes
            a.expectedBytes &+= b.expectedBytes
            a.receivedOfKnownSize &+= b.receivedOfKnownSize
            a.unknownSizeCount += b.unknownSizeCount
            a.activeCount += b.activeCount
        }

        static func -= (a: inout Share, b: Share) {
            a.receivedBytes &-= b.receivedBytes
            a.expectedBytes &-= b.expectedBytes
            a.receivedOfKnownSize &-= b.receivedOfKnownSize
            a.unknownSizeCount -= b.unknownSizeCount
            a.activeCount -= b.activeCount
        }
    }

    static func isLive(_ e: DownloadEntry) -> Bool { e.attempt != nil || e.state == .downloading }

    subscript(id: String) -> DownloadEntry? {
        get { storage[id] }
        _modify {
            forget(storage[id])
            defer { remember(storage[id]) }
            yield &storage[id]
        }
    }

    private mutating func forget(_ e: DownloadEntry?) {
        guard let e else { return }
        if Self.isLive(e) { live.remove(e.id) } else { settled -= Share(e) }
    }

    private mutating func remember(_ e: DownloadEntry?) {
        guard let e else { return }
        if Self.isLive(e) { live.insert(e.id) } else { settled += Share(e) }
    }

    var values: Dictionary<String, DownloadEntry>.Values { storage.values }
    var keys: Dictionary<String, DownloadEntry>.Keys { storage.keys }
    var count: Int { storage.count }

    /// Calls `body` with entry `id` where it is stored, without copying it (a copy retains and
    /// then releases each of the entry's references: a measurable part of the actor's time when
    /// it happens for every running download at every start); `nil` when there is no such entry.
    /// `body` only reads: a change made here would pass the sums by.
    mutating func peek<R>(_ id: String, _ body: (inout DownloadEntry) -> R) -> R? {
        guard let index = storage.index(forKey: id) else { return nil }
        return body(&storage.values[index])
    }

    /// Calls `body` with every entry where it is stored, in no order, without copying it (see
    /// ``Downloader/forEachEntryInPlace(_:)``). `body` only reads: a change made here would pass
    /// the sums by.
    mutating func forEachInPlace(_ body: (inout DownloadEntry) -> Void) {
        var index = storage.values.startIndex
        let end = storage.values.endIndex
        while index != end {
            body(&storage.values[index])
            storage.values.formIndex(after: &index)
        }
    }
}
