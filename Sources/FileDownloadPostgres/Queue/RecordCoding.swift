import FileDownload
import Foundation

/// The JSON form of a `DownloadRecord` in the `record` column: the whole Codable record
/// (secrets were already taken out by its initializer), so fields added to the record later are
/// kept without a migration.
enum RecordCoding {
    static func encode(_ record: DownloadRecord) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> DownloadRecord {
        try JSONDecoder().decode(DownloadRecord.self, from: Data(text.utf8))
    }

    static func encode(_ validator: Validator?) throws -> String {
        guard let validator else { return "null" }
        return String(decoding: try JSONEncoder().encode(validator), as: UTF8.self)
    }

    /// Segments as they appear in the record's `segments` (`[]` for none).
    static func encode(_ segments: [SegmentCheckpoint]) throws -> String {
        segments.isEmpty ? "[]" : String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)
    }
}
