import FileDownload
import Foundation

/// The `state.json` that `fdl` kept before it used the library's SQLite store: read once, to
/// import its downloads (see ``StateDirectory/openStore()``), never written.
struct LegacyStateFile: Decodable {
    static let supportedVersion = 1
    var version: Int
    var downloads: [DownloadRecord]

    /// The downloads in the file at `path`.
    ///
    /// - Throws: `DownloadError` with code `store` when the file cannot be read, is
    ///   not a state file, or has another version. The file is left untouched.
    static func records(at path: String) throws -> [DownloadRecord] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DownloadError(.store, "cannot read the old fdl state file \(path)")
        }
        let file: LegacyStateFile
        do {
            file = try JSONDecoder().decode(LegacyStateFile.self, from: data)
        } catch {
            throw DownloadError(.store, "the old fdl state file \(path) is not valid (\(error)); it was left untouched. "
                                + "Move it away to start afresh", underlying: SendableErrorBox(error))
        }
        guard file.version == supportedVersion else {
            throw DownloadError(.store, "the old fdl state file \(path) has version \(file.version); "
                                + "this fdl imports version \(supportedVersion). It was left untouched")
        }
        return file.downloads
    }
}
