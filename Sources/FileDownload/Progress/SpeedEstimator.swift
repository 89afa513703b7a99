/// A smoothed transfer rate: an exponentially weighted moving average of the rate between samples.
struct SpeedEstimator: Sendable {
    private(set) var bytesPerSecond: Double = 0
    private var lastBytes: Int64?
    private var lastTime: Duration?
    /// Weight of the newest sample.
    let smoothing: Double

    init(smoothing: Double = 0.3) { self.smoothing = smoothing }

    mutating func sample(bytes: Int64, at time: Duration) {
        defer { lastBytes = bytes; lastTime = time }
        guard let lastBytes, let lastTime, time > lastTime else { return }
        let seconds = (time - lastTime).seconds
        let rate = Double(max(0, bytes - lastBytes)) / seconds
        bytesPerSecond = bytesPerSecond == 0 ? rate : smoothing * rate + (1 - smoothing) * bytesPerSecond
    }

    /// Forgets the previous sample (after a pause or a restart) but keeps the rate.
    mutating func reset() {
        lastBytes = nil
        lastTime = nil
    }

    func timeRemaining(received: Int64, expected: Int64?) -> Duration? {
        guard let expected, bytesPerSecond > 0 else { return nil }
        let left = Double(max(0, expected - received)) / bytesPerSecond
        return .milliseconds(Int64(left * 1000))
    }
}
