/// Where a ``Downloader`` keeps its downloads so they outlive the process.
///
/// The downloader calls ``save(_:)`` on every state change, before it reports the change, and
/// ``checkpoint(id:bytes:validator:)`` on a schedule after the bytes are flushed to disk (never on
/// every progress tick). At start, ``Downloader/restore()`` reads ``loadAll()`` and reconciles the
/// records with the files on disk.
///
/// **Paging.** A store whose ``pagesWaitingDownloads`` is `true` keeps waiting downloads for the
/// downloader: ``Downloader/restore()`` then loads only the downloads that are neither waiting
/// nor finished (``loadAll(excluding:)``), and the downloader reads the next waiting ones
/// (``nextWaiting(limit:)``) as slots free up, so its memory grows with what runs, not with what
/// waits. Listing and counting (``page(in:after:limit:)``, ``countsByState()``) then go to the
/// store too. Every paging requirement has a default built on ``loadAll()``, so any store compiles
/// and answers correctly; only a store that answers them without reading every record should say
/// `true`.
///
/// Implementations: `InMemoryDownloadStore` (tests) and `SQLiteDownloadStore` (module
/// `FileDownloadSQLite`). A store must be safe to call from several tasks; a call that returns has
/// made its change durable (as durable as the store promises). Errors are ``DownloadError`` with code
/// ``DownloadError/Code/store``.
public protocol DownloadStore: Sendable {
    /// Every record, in ``DownloadRecord/queueOrder`` order.
    func loadAll() async throws -> [DownloadRecord]
    /// Inserts or replaces the record with the same id.
    func save(_ record: DownloadRecord) async throws
    /// Saves `records` in order, as ``save(_:)`` would one after another; a store that can makes
    /// them one change (all saved, or none when it throws). The downloader hands over the state
    /// changes that queued up together, so that a burst of them costs one round trip to the store.
    func saveAll(_ records: [DownloadRecord]) async throws
    /// Records that `bytes` of download `id` are on disk, belonging to `validator`.
    /// Does nothing for an unknown id.
    func checkpoint(id: String, bytes: Int64, validator: Validator?) async throws
    /// Records the bytes on disk of each segment of download `id` (one fetched over several
    /// connections), belonging to `validator`; ``DownloadRecord/checkpointedBytes`` becomes the
    /// segments' contiguous prefix from byte 0, so that every reader of it continues from bytes that
    /// are on disk. Does nothing for an unknown id.
    ///
    /// The default implementation keeps only what a single connection could continue from: it calls
    /// ``checkpoint(id:bytes:validator:)`` with the segments' contiguous prefix from byte 0 (correct,
    /// but more is fetched again after a restart). Stores that can keep the segments implement it; an
    /// actor store declares its implementation `async` (as ``saveAll(_:)``), or a call on the
    /// concrete type outside the actor picks the default implementation instead of the actor's own.
    func checkpoint(id: String, segments: [SegmentCheckpoint], validator: Validator?) async throws
    /// Forgets download `id`. Does nothing for an unknown id.
    func remove(id: String) async throws

    // MARK: paging (defaults in DownloadStore+Paging.swift)

    /// Whether the downloader may leave waiting downloads in the store and page them in as slots
    /// free up. `false` by default: the downloader then keeps every download in memory.
    var pagesWaitingDownloads: Bool { get }
    /// Every record whose state is not in `states`, in ``DownloadRecord/queueOrder`` order.
    func loadAll(excluding states: Set<DownloadState>) async throws -> [DownloadRecord]
    /// Up to `limit` records in state ``DownloadState/waiting``, in the order they run: higher
    /// ``DownloadOptions/priority`` first, then smaller ``DownloadRecord/queueOrder``, then id.
    func nextWaiting(limit: Int) async throws -> [DownloadRecord]
    /// The record of download `id`, or `nil`.
    func record(id: String) async throws -> DownloadRecord?
    /// How many records are in each state (states without any left out).
    func countsByState() async throws -> [DownloadState: Int]
    /// Up to `limit` records in ``DownloadRecord/queueOrder`` order (then id) whose queue order is
    /// greater than `position` (`nil`: from the first), in one of `states` (`nil`: any).
    func page(in states: Set<DownloadState>?, after position: Int64?, limit: Int) async throws -> [DownloadRecord]
    /// The largest ``DownloadRecord/queueOrder`` stored, or `nil` when the store is empty.
    func lastQueueOrder() async throws -> Int64?
    /// The staging paths (``DownloadRecord/partPath``) of the waiting records with bytes to
    /// continue from (``DownloadRecord/hasBytesToContinue``: checkpointed bytes or segments): the
    /// staging files that belong to downloads left in the store, kept when a restore removes
    /// orphaned staging files.
    func waitingPartPaths() async throws -> Set<String>
    /// The id of a record that is not completed or cancelled whose destination path or staging
    /// path (``DownloadRecord/partPath``) is `destination` or `partPath`, or `nil`: whether a new
    /// download with these paths would write into the files of one the store holds. A store may
    /// assume that every record's staging path is its destination path plus the suffix that
    /// `partPath` adds to `destination`.
    func unfinishedOwner(destination: String, partPath: String) async throws -> String?

    // MARK: connections per host (defaults in DownloadStore+HostConnections.swift)

    /// The connection counts remembered per origin (`scheme://host:port`, lowercased, as
    /// `URL.origin` gives it): for each, the last count a ``Downloader``'s automatic connections
    /// (``DownloadOptions/maxConnections`` `nil`) measured to be worth it (a window whose rate
    /// scaled, or the count a flat one settled at) or a throttle lowered it to. A downloader reads
    /// them once, before its first download, and starts an origin's target there; it trusts no
    /// value: below 1 is ignored, above ``Downloader/automaticConnections`` taken as that, and the
    /// target stays within the origin's cap. The default remembers nothing (`[:]`).
    func rememberedConnections() async throws -> [String: Int]
    /// Remembers `count` (at least 1) for `origin` (`scheme://host:port`: never credentials, a path
    /// or a query), replacing what was remembered for it. The default does nothing.
    func rememberConnections(_ count: Int, forOrigin origin: String) async throws
}
