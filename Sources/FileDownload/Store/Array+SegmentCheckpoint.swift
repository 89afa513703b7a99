extension Array where Element == SegmentCheckpoint {
    /// Bytes on disk from offset 0 without a gap: how far a single-connection resume could continue.
    public var contiguousPrefix: Int64 {
        var prefix: Int64 = 0
        for segment in sorted(by: { $0.start < $1.start }) {
            guard segment.start <= prefix else { break }
            prefix = Swift.max(prefix, segment.next)
            guard segment.isComplete else { break }
        }
        return prefix
    }

    /// The sum of the segments' bytes on disk (what a listing shows as done).
    public var bytesDone: Int64 {
        reduce(0) { $0 &+ $1.done }
    }
}
