import FileDownloadCLI
import Foundation

/// The lowercase hex SHA-256 of `data` (through a temporary file and `FileDigest`).
func sha256Hex(_ data: Data) throws -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
    try data.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    guard let digest = FileDigest.sha256(file.path) else { throw TestFailure("cannot hash \(file.path)") }
    return digest
}
