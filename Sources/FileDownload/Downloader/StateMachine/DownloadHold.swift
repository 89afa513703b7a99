/// What a download on hold waits for, and the data its release is judged by: the data of
/// ``DownloadLifecycle/Phase/held(_:)``.
struct DownloadHold: Sendable, Equatable {
    /// Why it waits (``DownloadInfo/waitReason``, the ``DownloadEvent/onHold(id:reason:)`` event).
    var reason: WaitReason
    /// When it was put on hold, on the downloader's clock: a fresh URL is waited for
    /// ``DownloaderConfiguration/freshURLTimeout`` from then, and a server that answered after it
    /// lets its downloads waiting for the network go.
    var since: Duration
    /// For space: the free space of the staging file's file system when a write met a full disk
    /// (ENOSPC); it continues only once there is more (a full disk that `statvfs` does not show,
    /// such as a quota, never makes it try again and again). `nil` for a hold the free space
    /// explains (``RoomCheck/Shortfall``): that one continues as soon as what it needs fits.
    var freeAtHold: Int64? = nil
    /// For space: what a hold the free space explains said the download still needs (a size it
    /// may know from nothing else, when the head announcing it was refused).
    var neededAtHold: Int64? = nil
}
