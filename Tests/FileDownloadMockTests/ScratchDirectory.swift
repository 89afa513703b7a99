import Foundation

/// A temporary directory removed when the value goes away: one per test.
final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("fdl-mock-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file path in the directory, created holding `contents`.
    func file(_ name: String, contents: Data = Data()) throws -> String {
        let path = url.appendingPathComponent(name).path
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }
}
