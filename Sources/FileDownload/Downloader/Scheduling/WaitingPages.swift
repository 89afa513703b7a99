/// What the downloader knows of the waiting downloads it left in a paging store
/// (``DownloadStore/pagesWaitingDownloads``): whether there may be any, and what keeps paging in
/// from racing with the writes still on their way to the store.
struct WaitingPages {
    /// Set by ``Downloader/restore()`` with a paging store: from then on waiting downloads may be
    /// left in the store, and listing and counting ask the store.
    var isActive = false
    /// Whether the store may hold waiting downloads that are not in memory.
    var mayHoldWaiting = false
    /// A refill (``Downloader/refill()``) is running.
    var refilling = false
    /// Counts the downloads left in the store so far.
    var parkSequence: UInt64 = 0
    /// Downloads left in the store (or removed) whose write may still be on its way to it, with
    /// their ``parkSequence``: a question about one waits for the journal first.
    var unsaved: [String: UInt64] = [:]
    /// Completed and cancelled downloads, oldest first, that may be forgotten in memory
    /// (``Downloader/forgetFinished()``); the store keeps them.
    var finished: [String] = []
    /// Whether a finished download was forgotten in memory (the store may hold downloads of any
    /// state that memory does not).
    var forgotFinished = false
    /// Whether the store may hold downloads that are not in memory.
    var mayHoldOthers: Bool { mayHoldWaiting || forgotFinished }
    /// Ids removed while a refill read the store (its answer may still name them).
    var removedDuringRefill: Set<String> = []

    /// Download `id` leaves memory (left in the store, or removed) while its write may still be
    /// on its way to the store: a question about it waits for the journal until
    /// ``saved(upTo:)`` passes the sequence returned.
    @discardableResult
    mutating func leave(_ id: String) -> UInt64 {
        parkSequence += 1
        unsaved[id] = parkSequence
        return parkSequence
    }

    /// Forgets the downloads left in the store up to `sequence`, whose saves have landed.
    mutating func saved(upTo sequence: UInt64) {
        guard !unsaved.isEmpty else { return }
        unsaved = unsaved.filter { $0.value > sequence }
    }
}
