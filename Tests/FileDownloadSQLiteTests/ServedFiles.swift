import FileDownloadTestSupport
import Foundation

/// Files of seeded random content in a directory that nginx serves, with their SHA-256.
struct ServedFiles {
    let root: URL
    /// Name → (size, SHA-256 hex).
    private(set) var files: [String: (size: Int, sha256: String)] = [:]

    init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Writes `name` with `size` bytes drawn from `generator`.
    mutating func add<G: RandomNumberGenerator>(_ name: String, size: Int, using generator: inout G) throws {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < size {
                var word = generator.next()
                let n = min(8, size - offset)
                withUnsafeBytes(of: &word) { buffer.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: n) }
                offset += n
            }
        }
        try Data(bytes).write(to: root.appending(path: name))
        files[name] = (size, sha256Hex(bytes))
    }

    var names: [String] { files.keys.sorted() }
    var totalBytes: Int64 { files.values.reduce(0) { $0 + Int64($1.size) } }

    /// The SHA-256 of the file at `url`, or `nil` when it cannot be read.
    static func sha256(of url: URL) -> String? { try? sha256Hex(fileAt: url) }
}
