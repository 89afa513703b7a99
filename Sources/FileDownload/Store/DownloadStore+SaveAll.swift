extension DownloadStore {
    /// Calls ``save(_:)`` for each record in order; stops at the first that throws.
    public func saveAll(_ records: [DownloadRecord]) async throws {
        for record in records { try await save(record) }
    }
}
