import Foundation

extension DownloadRecord {
    /// Applies a ``DownloadStore/checkpoint(id:bytes:validator:)``: the bytes known to be on disk,
    /// the validator they belong to, and the time of the change. Stores that keep whole records
    /// call this so that a checkpoint means the same everywhere.
    public mutating func checkpoint(bytes: Int64, validator: Validator?) {
        checkpointedBytes = bytes
        segments = []
        self.validator = validator
        updatedAt = Date()
    }

    /// Applies a ``DownloadStore/checkpoint(id:segments:validator:)``: each segment's bytes on disk,
    /// their contiguous prefix from byte 0 as ``checkpointedBytes`` (so that a reader that knows no
    /// segments continues from bytes that are all on disk), the validator they belong to, and the
    /// time of the change.
    public mutating func checkpoint(segments: [SegmentCheckpoint], validator: Validator?) {
        self.segments = segments
        checkpointedBytes = segments.contiguousPrefix
        self.validator = validator
        updatedAt = Date()
    }

    /// Whether this record comes before `other` in ``DownloadStore/loadAll()``: queue order, then id.
    public func isListed(before other: DownloadRecord) -> Bool {
        (queueOrder, id) < (other.queueOrder, other.id)
    }

    /// Whether this waiting record runs before `other` (``DownloadStore/nextWaiting(limit:)``):
    /// higher priority first, then smaller queue order, then id.
    public func runs(before other: DownloadRecord) -> Bool {
        if options.priority != other.options.priority { return options.priority > other.options.priority }
        return (queueOrder, id) < (other.queueOrder, other.id)
    }

    /// Whether the staging file holds bytes of this download to continue from: checkpointed bytes
    /// from the start, or segments (whose contiguous prefix may still be 0).
    public var hasBytesToContinue: Bool { checkpointedBytes > 0 || !segments.isEmpty }

    /// The bytes a listing shows as done: the whole length for a completed download, the sum of
    /// the segments' bytes for one fetched over several connections, else the checkpointed bytes.
    public var bytesDone: Int64 {
        if state == .completed { return expectedLength ?? checkpointedBytes }
        return segments.isEmpty ? checkpointedBytes : Swift.max(checkpointedBytes, segments.bytesDone)
    }
}
