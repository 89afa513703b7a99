/// How a segmented attempt, running away from the actor, asks the ``Downloader`` for
/// connections: the seam between segments and the per-host connection governor.
///
/// Made by ``Downloader/segmentSeam(for:)``; each call hops onto the actor. A connection is
/// opened only after ``slots()`` allowed more than run, and every ``opened()`` is followed by one
/// ``closed()``. The attempt's first connection is not reported (the downloader counts it as the
/// attempt's); every further one is.
struct SegmentSeam: Sendable {
    /// How many connections the download may use now (``Downloader/segmentSlots(for:)``), at
    /// least 1.
    var slots: @Sendable () async -> Int
    /// A connection of the download was opened.
    var opened: @Sendable () async -> Void
    /// A connection of the download ended.
    var closed: @Sendable () async -> Void
    /// A connection ended early with a transient error (after its ``closed()``): the governor
    /// decides whether it asks for fewer connections (429, 503, a refusal, a repeated loss) and
    /// holds the origin for the server's `Retry-After`.
    var failed: @Sendable (_ error: DownloadError) async -> Void
}
