import Foundation

/// An input file in the temporary directory, removed by `remove()`.
struct TemporaryInputFile {
    let path: String

    init(_ text: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-input-\(UUID().uuidString).txt").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
