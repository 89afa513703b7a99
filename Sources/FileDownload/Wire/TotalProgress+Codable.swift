/// The JSON form of the total progress: its fields by name, with `secondsRemaining` for
/// ``TotalProgress/estimatedTimeRemaining``.
extension TotalProgress: Codable {
    private enum Key: String, CodingKey {
        case receivedBytes, expectedBytes, receivedOfKnownSize, bytesPerSecond, secondsRemaining, activeCount,
             unknownSizeCount
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(receivedBytes, forKey: .receivedBytes)
        try c.encode(expectedBytes, forKey: .expectedBytes)
        try c.encode(receivedOfKnownSize, forKey: .receivedOfKnownSize)
        try c.encode(bytesPerSecond, forKey: .bytesPerSecond)
        try c.encodeIfPresent(estimatedTimeRemaining?.seconds, forKey: .secondsRemaining)
        try c.encode(activeCount, forKey: .activeCount)
        try c.encode(unknownSizeCount, forKey: .unknownSizeCount)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(receivedBytes: try c.decode(Int64.self, forKey: .receivedBytes),
                  expectedBytes: try c.decode(Int64.self, forKey: .expectedBytes),
                  receivedOfKnownSize: try c.decode(Int64.self, forKey: .receivedOfKnownSize),
                  bytesPerSecond: try c.decode(Double.self, forKey: .bytesPerSecond),
                  estimatedTimeRemaining: try c.decodeSecondsIfPresent(forKey: .secondsRemaining),
                  activeCount: try c.decode(Int.self, forKey: .activeCount),
                  unknownSizeCount: try c.decode(Int.self, forKey: .unknownSizeCount))
    }
}
