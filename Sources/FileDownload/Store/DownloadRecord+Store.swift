import Foundation

extension DownloadRecord {
    /// Applies a ``DownloadStore/checkpoint(id:bytes:validator:)``: the bytes known to be on disk,
    /// the validator they belong to, and the time of the change. Stores that keep whole records
    /// call this so that a checkpoint means the same everywhere.
    public mutating func checkpoint(bytes: Int64, validator: Validator?) {
        checkpointedBytes = bytes
        self.validator = validator
        updatedAt = Date()
    }

    /// Whether this record comes before `other` in ``DownloadStore/loadAll()``: queue order, then id.
    public func isListed(before other: DownloadRecord) -> Bool {
        (queueOrder, id) < (other.queueOrder, other.id)
    }

    /// The bytes a listing shows as done: the whole length for a completed download, else the
    /// checkpointed bytes.
    public var bytesDone: Int64 {
        state == .completed ? (expectedLength ?? checkpointedBytes) : checkpointedBytes
    }
}
