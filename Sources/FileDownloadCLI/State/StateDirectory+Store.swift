public import FileDownloadSQLite
import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StateDirectory {
    /// How `fdl` opens its store: a kill or crash loses no returned change; a power loss may roll
    /// back the last ones (never damage the file). Each state change then costs a write, not an
    /// `fsync` (see `docs/persistence.md`, "Durability", and `docs/cli.md`).
    static let storeConfiguration = SQLiteDownloadStore.Configuration(durability: .processCrash)

    /// Opens `STATE/state.sqlite` (creating it), after importing the `state.json` an older `fdl`
    /// left in the state directory.
    ///
    /// The import, when `state.json` exists: its records are saved into the store one by one
    /// (replacing records of the same id, so an import cut short by a crash is simply done again),
    /// then `state.json` is renamed `state.json.imported`; it is kept, not deleted. Records are
    /// imported as they are: their paths are checked when they are used (``StoredRecords``).
    ///
    /// - Throws: `DownloadError` with code `store` when the store cannot be opened
    ///   or `state.json` cannot be read (it is then left as it was, and nothing is imported).
    public func openStore() async throws -> SQLiteDownloadStore {
        let legacy = FileManager.default.fileExists(atPath: legacyStorePath) ? try LegacyStateFile.records(at: legacyStorePath) : nil
        let store = try await SQLiteDownloadStore(path: storePath, configuration: Self.storeConfiguration)
        guard let legacy else { return store }
        for record in legacy { try await store.save(record) }
        if rename(legacyStorePath, legacyStorePath + ".imported") != 0, errno != ENOENT {
            throw DownloadError(.store, "imported \(legacyStorePath) but cannot rename it: \(String(cString: strerror(errno)))")
        }
        return store
    }

    /// The stored downloads, checked against the download directory; empty, without creating any
    /// file, when the state directory holds no state.
    ///
    /// - Throws: `DownloadError` with code `store`, as ``openStore()``.
    public func loadRecords() async throws -> StoredRecords {
        guard exists else { return StoredRecords([], outputDirectory: outputDirectory) }
        let store = try await openStore()
        let records = try await store.loadAll()
        await store.close()
        return StoredRecords(records, outputDirectory: outputDirectory)
    }
}
