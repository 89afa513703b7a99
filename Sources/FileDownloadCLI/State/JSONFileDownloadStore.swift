public import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``FileDownload/DownloadStore`` in one JSON file: what `fdl` keeps under `DIR/.fdl/`.
///
/// Every change rewrites the whole file the safe way: write a temporary file next to it, `fsync`
/// it, `rename` it over the old one, `fsync` the directory. A crash at any point leaves either the
/// old file or the new one, never a torn or zero-filled one. Meant for the tens of downloads a
/// command line handles; the SQLite store scales further.
///
/// Records hold nothing secret: `save` strips passwords and sensitive header fields again
/// (``FileDownload/DownloadRecord/withoutSecrets``), as the other stores do.
public actor JSONFileDownloadStore: DownloadStore {
    /// The JSON file.
    public nonisolated let path: String
    private var records: [String: DownloadRecord]
    private let onCheckpoint: @Sendable (_ id: String, _ bytes: Int64) -> Void

    /// Opens the store at `path`, reading the records it holds; a missing file is an empty store.
    ///
    /// - Parameter onCheckpoint: called after each checkpoint is durable (for `--json`).
    /// - Throws: ``FileDownload/DownloadError`` with code `store` when the file exists but cannot be
    ///   read or is not a store file. The file is left untouched.
    public init(path: String, onCheckpoint: @escaping @Sendable (_ id: String, _ bytes: Int64) -> Void = { _, _ in }) throws {
        self.path = path
        self.onCheckpoint = onCheckpoint
        self.records = try Self.read(path: path)
    }

    /// The records in the file at `path` by id; empty when there is no file.
    static func read(path: String) throws -> [String: DownloadRecord] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DownloadError(.store, "cannot read the fdl state file \(path)")
        }
        do {
            let file = try JSONDecoder().decode(StoreFile.self, from: data)
            guard file.version == StoreFile.currentVersion else {
                throw DownloadError(.store, "the fdl state file \(path) has version \(file.version); this fdl reads version \(StoreFile.currentVersion)")
            }
            return Dictionary(file.downloads.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        } catch let error as DownloadError {
            throw error
        } catch {
            throw DownloadError(.store, "the fdl state file \(path) is not valid: \(error); move it away to start afresh",
                                underlying: SendableErrorBox(error))
        }
    }

    public func loadAll() -> [DownloadRecord] {
        records.values.sorted { $0.isListed(before: $1) }
    }

    public func save(_ record: DownloadRecord) throws {
        records[record.id] = record.withoutSecrets  // as every store does, whatever the caller passed
        try persist()
    }

    public func checkpoint(id: String, bytes: Int64, validator: Validator?) throws {
        guard records[id] != nil else { return }
        records[id]?.checkpoint(bytes: bytes, validator: validator)
        try persist()
        onCheckpoint(id, bytes)
    }

    public func remove(id: String) throws {
        guard records.removeValue(forKey: id) != nil else { return }
        try persist()
    }

    /// The record for `id`, if any.
    public func record(for id: String) -> DownloadRecord? { records[id] }

    private func persist() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(StoreFile(version: StoreFile.currentVersion, downloads: loadAll()))
        } catch {
            throw DownloadError(.store, "cannot encode the fdl state: \(error)")
        }
        try AtomicFile.write(data, to: path)
    }
}

/// The layout of the state file.
struct StoreFile: Codable {
    static let currentVersion = 1
    var version: Int
    var downloads: [DownloadRecord]
}
