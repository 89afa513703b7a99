/// A small, seedable random number generator for retry jitter (reproducible in tests).
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    /// Output number `index` (from 0) of the generator started at `seed`, without stepping through
    /// the ones before (``MockContent`` makes any byte of a seeded file this way).
    package static func output(seed: UInt64, index: UInt64) -> UInt64 {
        mix(seed &+ (index &+ 1) &* increment)
    }

    private static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    private static func mix(_ state: UInt64) -> UInt64 {
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<1.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
