/// What ``Downloader/restore()`` found and did.
public struct RestoreReport: Sendable, Hashable {
    /// Every download restored, in queue order.
    public var restored: [String] = []
    /// Downloads that were running when the process stopped and were queued again.
    public var resumed: [String] = []
    /// Completed downloads whose file is gone: now `failed` (``Downloader/resume(_:)`` fetches
    /// them again).
    public var vanished: [String] = []
    /// Completed downloads whose file no longer has the recorded size (edited by hand). They stay
    /// `completed`; the caller decides.
    public var modified: [String] = []
    /// Downloads whose staging file was gone although bytes were checkpointed: they start from zero.
    public var restartedFromZero: [String] = []
    /// Staging files in the downloads directory that belonged to no download, removed.
    public var removedOrphans: [String] = []

    public init() {}
}
