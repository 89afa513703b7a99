/// Paces a transfer to a number of bytes per second, measured from the first byte.
final class RateLimiter {
    private let bytesPerSecond: Int64
    private let start = ContinuousClock.now
    private var total: Int64 = 0

    init(bytesPerSecond: Int64) {
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    /// A read size that keeps the pace smooth: about a tenth of a second's worth, at least 4 KiB.
    var chunkSize: Int { Int(clamping: max(4096, bytesPerSecond / 10)) }

    /// Counts `bytes` and returns when the next read may start.
    func consumed(_ bytes: Int) -> ContinuousClock.Instant {
        total += Int64(bytes)
        let seconds = Double(total) / Double(bytesPerSecond)
        return start.advanced(by: .milliseconds(Int64(seconds * 1000)))
    }
}
