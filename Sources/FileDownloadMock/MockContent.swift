public import Foundation
public import FileDownload
import Crypto

/// The bytes of a ``MockResource``: given literally, or generated from a seed.
///
/// Generated content is a splitmix64 stream: byte `i` is byte `i % 8` (little-endian) of the
/// splitmix64 output number `i / 8` for the seed. It is computed on demand for any offset, so a
/// resource of gigabytes costs no memory, and the same seed and size always give the same bytes on
/// every platform. Use ``data``, ``bytes(in:)`` or ``sha256`` to assert on what a download produced.
public enum MockContent: Sendable, Hashable, CustomStringConvertible {
    /// These exact bytes.
    case bytes(Data)
    /// `size` bytes generated from `seed`.
    case seeded(seed: UInt64, size: Int64)

    /// The length in bytes.
    public var size: Int64 {
        switch self {
        case .bytes(let data): Int64(data.count)
        case .seeded(_, let size): max(0, size)
        }
    }

    /// The whole content. For large seeded content prefer ``bytes(in:)`` or ``sha256``.
    public var data: Data { bytes(in: 0..<size) }

    /// The bytes in `range` (clamped to the content).
    public func bytes(in range: Range<Int64>) -> Data {
        let lower = min(max(0, range.lowerBound), size)
        let upper = min(max(lower, range.upperBound), size)
        var result = Data(count: Int(upper - lower))
        result.withUnsafeMutableBytes { _ = fill($0, at: lower) }
        return result
    }

    /// The SHA-256 of the content as lowercase hex, computed in pieces (no full copy in memory).
    public var sha256: String {
        var hasher = SHA256()
        var offset: Int64 = 0
        let piece: Int64 = 1 << 20
        while offset < size {
            hasher.update(data: bytes(in: offset..<min(size, offset + piece)))
            offset += piece
        }
        return FileValidation.hex(hasher.finalize())
    }

    /// The strong entity tag a ``MockResource`` reports when none is configured: it changes
    /// whenever the content does.
    public var defaultValidator: Validator {
        switch self {
        case .bytes(let data):
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a 64
            for byte in data { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return .entityTag("\"mock-b-\(String(hash, radix: 16))-\(data.count)\"")
        case .seeded(let seed, let size):
            return .entityTag("\"mock-s-\(String(seed, radix: 16))-\(size)\"")
        }
    }

    /// Writes the content's bytes starting at `offset` into `buffer` (as many as fit and exist).
    /// Returns the number of bytes written.
    @discardableResult
    public func fill(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        let count = Int(max(0, min(Int64(buffer.count), size - offset)))
        guard count > 0 else { return 0 }
        switch self {
        case .bytes(let data):
            let start = data.startIndex + Int(offset)
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self).baseAddress!, from: start..<start + count)
        case .seeded(let seed, _):
            var written = 0
            var position = offset
            // A partial word at the start or end goes byte-wise; whole words are stored at once.
            while written < count {
                let word = SplitMix64.output(seed: seed, index: UInt64(position / 8)).littleEndian
                let skip = Int(position % 8)
                let take = min(8 - skip, count - written)
                if take == 8 {
                    buffer.storeBytes(of: word, toByteOffset: written, as: UInt64.self)
                } else {
                    withUnsafeBytes(of: word) { wordBytes in
                        buffer.baseAddress!.advanced(by: written)
                            .copyMemory(from: wordBytes.baseAddress!.advanced(by: skip), byteCount: take)
                    }
                }
                written += take
                position += Int64(take)
            }
        }
        return count
    }

    public var description: String {
        switch self {
        case .bytes(let data): "\(data.count) literal bytes"
        case .seeded(let seed, let size): "\(size) bytes from seed \(seed)"
        }
    }
}
