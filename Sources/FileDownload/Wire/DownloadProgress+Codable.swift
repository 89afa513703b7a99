/// The JSON form of a progress snapshot: `{"receivedBytes", "expectedBytes"?, "bytesPerSecond",
/// "secondsRemaining"?}`.
extension DownloadProgress: Codable {
    private enum Key: String, CodingKey {
        case receivedBytes, expectedBytes, bytesPerSecond, secondsRemaining
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(receivedBytes, forKey: .receivedBytes)
        try c.encodeIfPresent(expectedBytes, forKey: .expectedBytes)
        try c.encode(bytesPerSecond, forKey: .bytesPerSecond)
        try c.encodeIfPresent(estimatedTimeRemaining?.seconds, forKey: .secondsRemaining)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(receivedBytes: try c.decode(Int64.self, forKey: .receivedBytes),
                  expectedBytes: try c.decodeIfPresent(Int64.self, forKey: .expectedBytes),
                  bytesPerSecond: try c.decodeIfPresent(Double.self, forKey: .bytesPerSecond) ?? 0,
                  estimatedTimeRemaining: try c.decodeSecondsIfPresent(forKey: .secondsRemaining))
    }
}
