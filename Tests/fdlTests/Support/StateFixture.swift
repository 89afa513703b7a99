import FileDownload
import FileDownloadTestSupport
import Foundation

/// States a test crafts by hand, the way a person (or an attacker) could leave them in `DIR/.fdl`.
enum StateFixture {
    /// The layout of the `state.json` that fdl wrote before it kept its state in SQLite.
    private struct LegacyFile: Encodable {
        var version = 1
        var downloads: [DownloadRecord]
    }

    /// Writes `records` as `DIR/.fdl/state.json` in the format of fdl's first release (which
    /// fdl now imports once into its SQLite store).
    static func writeLegacyState(_ records: [DownloadRecord], outputDirectory: TemporaryDirectory) throws {
        let state = outputDirectory.file(".fdl")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try JSONEncoder().encode(LegacyFile(downloads: records)).write(to: state.appending(path: "state.json"))
    }

    /// A paused download of `url` with bytes checkpointed under a strong ETag.
    static func paused(_ id: String, url: String, destination: String, partPath: String, bytes: Int64 = 10) -> DownloadRecord {
        DownloadRecord(id: id, url: URL(string: url)!, destination: URL(fileURLWithPath: destination), partPath: partPath,
                       state: .paused, validator: .entityTag("\"crafted\""), checkpointedBytes: bytes)
    }
}
