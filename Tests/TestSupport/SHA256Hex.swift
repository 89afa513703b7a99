import Crypto
public import Foundation

/// The lowercase hex SHA-256 of `bytes`, as `sha256sum` prints it.
public func sha256Hex(_ bytes: some DataProtocol) -> String {
    hexString(SHA256.hash(data: bytes))
}

/// The lowercase hex SHA-256 of the file at `url`, read in 1 MiB pieces.
///
/// - Throws: when the file cannot be opened or read.
public func sha256Hex(fileAt url: URL) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hasher = SHA256()
    while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { hasher.update(data: data) }
    return hexString(hasher.finalize())
}

/// `bytes` as lowercase hex, two digits a byte: for a digest a test computed piece by piece.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}
