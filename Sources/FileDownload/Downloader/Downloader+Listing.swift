extension Downloader {
    /// The number of downloads the downloader knows (any state), without describing them.
    public var downloadCount: Int { entries.count }

    /// How many downloads are in each state (states without any are left out), without describing
    /// them: what a summary needs when the queue holds thousands.
    public func countsByState() -> [DownloadState: Int] {
        var counts: [DownloadState: Int] = [:]
        forEachEntryInPlace { counts[$0.state, default: 0] += 1 }
        return counts
    }

    /// Calls `body` with every entry where it is stored, in no order, without copying it: a
    /// `DownloadEntry` has dozens of fields, and copying each of 10,000 (as `for e in
    /// entries.values` does) costs far more than reading the few a scan needs. `body` must not
    /// touch `entries`.
    func forEachEntryInPlace(_ body: (inout DownloadEntry) -> Void) {
        var index = entries.values.startIndex
        let end = entries.values.endIndex
        while index != end {
            body(&entries.values[index])
            entries.values.formIndex(after: &index)
        }
    }

    /// Up to `limit` downloads in queue order, after queue position `after` (`nil`: from the
    /// first), in one of `states` (`nil`: any state). Only the downloads of the page are described,
    /// so a page costs little however long the queue is; the page's ``DownloadPage/next`` is the
    /// `after` of the next page. Reading every page one after the other names each download that
    /// stayed known meanwhile exactly once.
    public func downloads(in states: Set<DownloadState>? = nil, after position: Int64? = nil, limit: Int) -> DownloadPage {
        let limit = Swift.max(0, limit)
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
