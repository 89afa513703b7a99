extension Downloader {
    /// The number of downloads the downloader knows (any state), without describing them. With a
    /// paging store it is counted by the store, after the writes posted so far have landed.
    public var downloadCount: Int {
        get async {
            if let counts = await storeCounts() { return counts.values.reduce(0, +) }
            return entries.count
        }
    }

    /// How many downloads are in memory (for tests of paging).
    package var residentCount: Int { entries.count }

    /// How many downloads are in each state (states without any are left out), without describing
    /// them: what a summary needs when the queue holds thousands. With a paging store the store
    /// counts (on an index, for the SQLite store), after the writes posted so far have landed.
    public func countsByState() async -> [DownloadState: Int] {
        if let counts = await storeCounts() { return counts }
        var counts: [DownloadState: Int] = [:]
        forEachEntryInPlace { counts[$0.state, default: 0] += 1 }
        return counts
    }

    /// The store's counts when it pages (``WaitingPages/isActive``), `nil` otherwise or when it
    /// cannot answer (then memory answers, without the downloads left in the store).
    private func storeCounts() async -> [DownloadState: Int]? {
        guard scheduler.pages.isActive, let store = persistence.store else { return nil }
        await persistence.drain()
        do {
            return try await store.countsByState()
        } catch {
            logger.error("the store could not count the downloads; memory answers", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Describes `records`: from memory for the downloads there (their progress is current),
    /// from the record for the others.
    func describe(_ records: [DownloadRecord]) -> [DownloadInfo] {
        records.map { entries[$0.id]?.info() ?? DownloadEntry(record: $0).info() }
    }

    /// Calls `body` with every entry where it is stored, in no order, without copying it: a
    /// `DownloadEntry` has dozens of fields, and copying each of 10,000 (as `for e in
    /// entries.values` does) costs far more than reading the few a scan needs. `body` must not
    /// touch `entries`.
    func forEachEntryInPlace(_ body: (inout DownloadEntry) -> Void) {
        entries.forEachInPlace(body)
    }

    /// Up to `limit` downloads in queue order, after queue position `after` (`nil`: from the
    /// first), in one of `states` (`nil`: any state). Only the downloads of the page are described,
    /// so a page costs little however long the queue is; the page's ``DownloadPage/next`` is the
    /// `after` of the next page. Reading every page one after the other names each download that
    /// stayed known meanwhile exactly once.
    ///
    /// With a paging store the page is read from the store (after the writes posted so far have
    /// landed), so it costs the same with a million downloads waiting there.
    public func downloads(in states: Set<DownloadState>? = nil, after position: Int64? = nil, limit: Int) async -> DownloadPage {
        let limit = Swift.max(0, limit)
        if scheduler.pages.isActive, let store = persistence.store {
            await persistence.drain()
            do {
                let records = try await store.page(in: states, after: position, limit: limit + 1)
                let page = records.prefix(limit)
                return DownloadPage(downloads: describe(Array(page)),
                                    next: records.count > limit ? page.last?.queueOrder : nil)
            } catch {
                logger.error("the store could not list the downloads; memory answers", metadata: ["error": "\(error)"])
            }
        }
        var matching: [(order: Int64, id: String)] = []
        forEachEntryInPlace { entry in
            if let position, entry.queueOrder <= position { return }
            if let states, !states.contains(entry.state) { return }
            matching.append((entry.queueOrder, entry.id))
        }
        matching.sort { $0.order < $1.order }
        let page = matching.prefix(limit)
        let infos = page.compactMap { entries[$0.id]?.info() }
        return DownloadPage(downloads: infos, next: matching.count > limit ? page.last?.order : nil)
    }
}
