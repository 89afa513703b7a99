public import Foundation

/// Deterministic test content: `count` bytes of a simple pattern seeded by `seed`.
public func sampleBytes(_ count: Int, seed: UInt8 = 7) -> Data {
    var bytes = [UInt8](repeating: 0, count: count)
    var state = UInt32(seed) &* 2_654_435_761 &+ 1
    for i in 0..<count {
        state = state &* 1_664_525 &+ 1_013_904_223
        bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
    }
    return Data(bytes)
}
