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
    /// A connection failed in a way that asks for fewer (429, 503, reset, refused); with the
    /// server's `Retry-After`, if it gave one.
    var throttled: @Sendable (_ retryAfter: Duration?) async -> Void

    /// A seam that allows `slots` connections and records nothing (tests of the coordinator).
    static func fixed(_ slots: Int) -> SegmentSeam {
        SegmentSeam(slots: { slots }, opened: {}, closed: {}, throttled: { _ in })
    }
}
