extension DownloadStore {
    /// Keeps the segments' contiguous prefix from byte 0 with ``checkpoint(id:bytes:validator:)``:
    /// a store that cannot keep segments loses none of the bytes a single connection could continue
    /// from, and nothing it claims is missing on disk.
    public func checkpoint(id: String, segments: [SegmentCheckpoint], validator: Validator?) async throws {
        try await checkpoint(id: id, bytes: segments.contiguousPrefix, validator: validator)
    }
}
