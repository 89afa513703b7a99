import Foundation

/// Small file helpers for assertions.
enum FileValidation {
    static func size(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }
}
