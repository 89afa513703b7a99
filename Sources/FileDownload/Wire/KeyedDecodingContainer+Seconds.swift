extension KeyedDecodingContainer {
    /// The longest wait a decoded number of seconds stands for: about 31 years. A larger number
    /// (a server's absurd `Retry-After`, or a damaged message) means "not soon", and is read as
    /// this, so that converting it to a `Duration` cannot overflow.
    static var longestDecodedWait: Double { 1e9 }

    /// A number of seconds as a `Duration`, `nil` when absent. Negative numbers are read as 0,
    /// numbers above ``longestDecodedWait`` as that.
    ///
    /// - Throws: `DecodingError` when the value is not a finite number.
    func decodeSecondsIfPresent(forKey key: Key) throws -> Duration? {
        guard let seconds = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard seconds.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "\(seconds) is not a number of seconds")
        }
        return .seconds(Swift.min(Swift.max(seconds, 0), Self.longestDecodedWait))
    }
}
