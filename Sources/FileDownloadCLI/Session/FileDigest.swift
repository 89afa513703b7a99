import Crypto
import Foundation

/// SHA-256 of files on disk, read in 1 MiB pieces.
public enum FileDigest {
    /// The lowercase hex SHA-256 of the file at `path`, or `nil` when it cannot be read.
    @Sendable public static func sha256(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
            }
        } catch {
            return nil
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `text` is 64 hex digits.
    public static func isSHA256(_ text: String) -> Bool {
        text.count == 64 && text.allSatisfy(\.isHexDigit)
    }
}
