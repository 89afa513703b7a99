public import FileDownload
public import Foundation

/// The event journal: a bounded, numbered log of events kept in the same database file as the
/// downloads, so that a process that serves events to clients (the download agent) can tell a
/// client that reconnects everything it missed.
///
/// Each entry has a **sequence number** that increases by one with every entry appended and is
/// never given twice in one file, even after entries were pruned; the payload is opaque to the
/// store (the agent stores the JSON form of a ``FileDownload/DownloadEvent``). The journal keeps
/// the last ``Configuration/journalCapacity`` entries; an append deletes older ones in the same
/// transaction. Beside the entries the store keeps, per download, the **last state an entry
/// announced** (``journalledStates(of:)``), which is not pruned: after a crash, a process asks for
/// the downloads whose stored state differs from it (``unannounced(after:savedBefore:limit:)``, a page at a
/// time) to announce what happened after the last entry was written.
extension SQLiteDownloadStore {
    /// An event to append: the download it is about, the state it leaves that download in (for
    /// state changes; `nil` otherwise), and its payload.
    public struct JournalEvent: Sendable, Hashable {
        public var downloadID: String?
        public var state: DownloadState?
        public var payload: Data

        public init(downloadID: String?, state: DownloadState?, payload: Data) {
            self.downloadID = downloadID
            self.state = state
            self.payload = payload
        }
    }

    /// One entry of the journal.
    public struct JournalEntry: Sendable, Hashable {
        public var sequence: Int64
        public var downloadID: String?
        public var state: DownloadState?
        public var recordedAt: Date
        public var payload: Data

        public init(sequence: Int64, downloadID: String?, state: DownloadState?, recordedAt: Date, payload: Data) {
            self.sequence = sequence
            self.downloadID = downloadID
            self.state = state
            self.recordedAt = recordedAt
            self.payload = payload
        }
    }

    /// A page of ``SQLiteDownloadStore/unannounced(after:savedBefore:limit:)``.
    public struct UnannouncedPage: Sendable, Hashable {
        public init(ids: [String], resumeAfter: String?) {
            self.ids = ids
            self.resumeAfter = resumeAfter
        }

        /// The downloads of the page whose stored state is not the last one the journal
        /// announced (or that the journal never announced), in the order of their ids.
        public var ids: [String]
        /// The id to pass as `after` for the next page; `nil` when this page reached the end.
        public var resumeAfter: String?
    }

    /// The journal's extent: the oldest sequence number kept and the last one given.
    public struct JournalBounds: Sendable, Hashable {
        public init(oldest: Int64?, last: Int64) {
            self.oldest = oldest
            self.last = last
        }

        /// The oldest entry kept; `nil` when the journal holds none.
        public var oldest: Int64?
        /// The last sequence number given in this file; 0 when none was.
        public var last: Int64
    }

    /// Appends `events` in one transaction, in order, and returns their sequence numbers. The
    /// states they announce are recorded for ``journalledStates(of:)``; entries beyond
    /// ``Configuration/journalCapacity`` are deleted, oldest first. When the call throws, nothing
    /// was appended.
    @discardableResult
    public func appendToJournal(_ events: [JournalEvent]) throws -> [Int64] {
        guard !events.isEmpty else { return [] }
        let capacity = configuration.journalCapacity
        return try performOnJournal("cannot append \(events.count) events to the journal") {
            try $0.append(events, capacity: capacity, at: Date())
        }
    }

    /// Up to `limit` entries whose sequence number is above `sequence`, oldest first.
    public func journal(after sequence: Int64, limit: Int = 1000) throws -> [JournalEntry] {
        try performOnJournal("cannot read the journal") { try $0.entries(after: sequence, limit: max(1, limit)) }
    }

    /// The oldest sequence number kept and the last one given.
    public func journalBounds() throws -> JournalBounds {
        try performOnJournal("cannot read the journal") {
            let (oldest, last) = try $0.bounds()
            return JournalBounds(oldest: oldest, last: last)
        }
    }

    /// The last state the journal announced for each of `ids` it has announced a state of (one
    /// primary-key lookup per id).
    public func journalledStates(of ids: [String]) throws -> [String: DownloadState] {
        guard !ids.isEmpty else { return [:] }
        return try performOnJournal("cannot read the journal") { try $0.states(of: ids) }
    }

    /// The downloads saved before `date` whose stored state is not the last one the journal
    /// announced, or that the journal never announced: a page of the store, walked in the order of
    /// the ids.
    ///
    /// Looks at up to `limit` stored downloads whose id is after `id` (from the first when `nil`)
    /// and returns those that differ, with the id to continue after. A caller walks the whole
    /// store with bounded memory by passing ``UnannouncedPage/resumeAfter`` back until it is
    /// `nil`; each call holds the store's thread for one page only. `date` is when the caller
    /// started: what it saved since (its `updatedAt`) is its own to announce, and is left out, so
    /// that a walk that runs beside new changes does not announce their states ahead of their
    /// events. Downloads saved or removed between two calls may or may not be seen.
    public func unannounced(after id: String?, savedBefore date: Date, limit: Int = 10_000) throws -> UnannouncedPage {
        try performOnJournal("cannot read the journal") {
            try $0.unannounced(after: id, savedBefore: date, limit: max(1, limit))
        }
    }

    /// Forgets the journalled state of download `id` (when the download itself is forgotten).
    public func forgetJournalledState(of id: String) throws {
        try performOnJournal("cannot update the journal") { try $0.forgetState(of: id) }
    }
}
