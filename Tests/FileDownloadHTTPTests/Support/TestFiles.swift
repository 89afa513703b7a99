import Crypto
import FileDownloadMock
import FileDownloadTestSupport
import Foundation

/// Files with seeded pseudo-random content, and SHA-256 helpers.
enum TestFiles {
    /// Writes `size` bytes of the seeded stream of ``MockContent`` to `url` and returns their SHA-256.
    @discardableResult
    static func write(_ url: URL, size: Int, seed: UInt64) throws -> String {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let content = MockContent.seeded(seed: seed, size: Int64(size))
        var hasher = SHA256()
        var offset: Int64 = 0
        var buffer = Data(count: 1 << 20)
        while offset < content.size {
            let n = buffer.withUnsafeMutableBytes { content.fill($0, at: offset) }
            let slice = buffer.prefix(n)
            hasher.update(data: slice)
            try handle.write(contentsOf: slice)
            offset += Int64(n)
        }
        return hexString(hasher.finalize())
    }

    /// The SHA-256 of the file at `url` (hex).
    static func sha256(_ url: URL) throws -> String { try sha256Hex(fileAt: url) }

    static func size(_ url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }
}
