#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When and how often the downloader retries a retryable failure.
///
/// Retry *n* (1-based) waits `min(maxDelay, initialDelay * multiplier^(n-1))`, then that value is
/// spread by ±`jitter` (a fraction, 0.2 = ±20 %) so that many downloads failing together do not
/// retry together. A server's `Retry-After` wins when it is longer, but never beyond `maxDelay`
/// (a server asking for a year waits `maxDelay`). Every retry resumes at the bytes already on disk.
public struct RetryPolicy: Sendable, Hashable, Codable {
    /// Retries after the first attempt; 0 disables retrying.
    public var maxRetries: Int
    public var initialDelay: Duration
    public var multiplier: Double
    /// The longest wait before a retry, whatever the backoff or a server's `Retry-After` says.
    public var maxDelay: Duration
    /// A fraction in 0...1.
    public var jitter: Double

    public init(
        maxRetries: Int = 5,
        initialDelay: Duration = .seconds(1),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(300),
        jitter: Double = 0.2
    ) {
        self.maxRetries = maxRetries
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
    }

    /// Never retry.
    public static let none = RetryPolicy(maxRetries: 0)

    /// The delay before retry `retry` (1-based), given a random number `unit` in 0..<1.
    public func delay(beforeRetry retry: Int, unit: Double) -> Duration {
        let raw = min(maxDelay.seconds, initialDelay.seconds * pow(multiplier, Double(max(0, retry - 1))))
        let spread = raw * jitter * (unit * 2 - 1)
        // Clamped before the conversion: a policy read from a store or resume data may hold any value.
        let milliseconds = min(max(0, raw + spread) * 1000, Double(Int64.max / 2))
        return .milliseconds(Int64(milliseconds.isNaN ? 0 : milliseconds))
    }
}

