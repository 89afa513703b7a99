/// What ``Downloader/restore()`` found and did.
public struct RestoreReport: Sendable, Hashable {
    /// Every download read and restored, in queue order (with a paging store, neither the waiting
    /// nor the finished ones: ``Downloader/restore()``).
    public var restored: [String] = []
    /// Downloads that were running when the process stopped and were queued again.
    public var resumed: [String] = []
    /// Completed downloads whose file is gone: now `failed` (``Downloader/resume(_:)`` fetches
    /// them again). Always empty with a paging store, whose completed downloads are not read.
    public var vanished: [String] = []
    /// Completed downloads whose file no longer has the recorded size (edited by hand). They stay
    /// `completed`; the caller decides. Always empty with a paging store.
    public var modified: [String] = []
    /// Downloads whose staging file was gone although bytes were checkpointed: they start from zero.
    public var restartedFromZero: [String] = []
    /// Downloads whose stored paths failed the check (a destination that is not an absolute,
    /// standardized file path, or a staging path other than the destination plus the staging
    /// suffix): now `failed` with ``DownloadError/Code/invalidDestination``. Nothing at those paths
    /// was opened, cut, moved or deleted, and nothing ever will be: resuming fails the same way.
    public var rejected: [String] = []
    /// Staging files in the downloads directory that belonged to no download, removed.
    public var removedOrphans: [String] = []

    public init() {}
}
