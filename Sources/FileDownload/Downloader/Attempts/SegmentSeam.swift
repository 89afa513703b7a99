/// How a segmented attempt, running away from the actor, asks the ``Downloader`` for
/// connections: the seam between segments and the per-host connection governor.
///
/// Made by ``Downloader/segmentSeam(for:handle:)``; each call hops onto the actor, and calls
/// made for an attempt that is no longer the download's current one (abandoned after a stop)
/// change nothing. The attempt's first connection is not reported (the downloader counts it as
/// the attempt's). Every further one is counted before it opens, by ``reserve`` (which grants
/// it) or ``opened``, and let go by exactly one ``closed``; the downloader lets go of any still
/// counted when the attempt ends.
struct SegmentSeam: Sendable {
    /// How many connections the download could use as its attempt started
    /// (``Downloader/segmentSlots(for:)``, taken on the actor right after the attempt's own
    /// connection was counted), at least 1: what the file is cut for. Read without a hop; more
    /// may be allowed later (a wake).
    var slots: Int
    /// Asks for one more connection beside the attempt's `running` ones. When the downloader
    /// grants it, it is counted in the same step (no other download can take that room
    /// meanwhile) and the connections the download may use now are returned; `nil` otherwise.
    var reserve: @Sendable (_ running: Int) async -> Int?
    /// Counts a connection opened without asking: the one connection that fetches the whole
    /// file when the server ignores ranges, in place of the attempt's own.
    var opened: @Sendable () async -> Void
    /// A counted connection ended (or was granted and not opened).
    var closed: @Sendable () async -> Void
    /// A connection ended early with a transient error while others of the attempt still run:
    /// the governor decides whether it asks for fewer connections (429, 503, a refusal, a
    /// repeated loss) and holds the origin for the server's `Retry-After`. (When no connection
    /// runs any more the attempt fails with the error, and its end tells the governor.)
    var failed: @Sendable (_ error: DownloadError) async -> Void
    /// The downloader's clock (time since it was made), read without a hop onto the actor: how
    /// the attempt times the growth of its own bound on connections.
    var now: @Sendable () -> Duration
}
