import FileDownload
import FileDownloadSQLite

extension SQLiteDownloadStore {
    /// Writes a closed store file at `path` holding sample records with the given ids (queue order
    /// = position), as a previous run of the program would have left it.
    static func writeFixture(at path: String, ids: [String]) async throws {
        let store = try await SQLiteDownloadStore(path: path, configuration: .init(durability: .processCrash))
        for (i, id) in ids.enumerated() { try await store.save(.sample(id: id, queueOrder: Int64(i))) }
        await store.close()
    }
}
