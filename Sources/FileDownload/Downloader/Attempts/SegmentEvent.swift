/// What the coordinator of a segmented attempt (``SegmentRun``) waits for.
enum SegmentEvent: Sendable {
    /// The first connection's head arrived and split the file (a head that does not split
    /// it is not announced: the connection's end comes next).
    case head
    /// The connection of piece `key` ended, with the error it threw or none.
    case ended(key: Int, error: (any Error)?)
    /// The downloader may allow more connections now (``Downloader/wakeSegments()``).
    case wake
}
