/// The overall limit of the agent's downloader (`GET`/`PUT /v1/limit`): the bytes per second of
/// all downloads together, `nil` for none.
public struct AgentLimit: Codable, Sendable, Hashable {
    /// Bytes per second for all downloads together; `nil`: no overall limit.
    public var bytesPerSecond: Int64?

    public init(bytesPerSecond: Int64?) {
        self.bytesPerSecond = bytesPerSecond
    }

    /// The largest limit the agent accepts: 1 TiB/s (`bad-limit` beyond).
    public static let maxBytesPerSecond: Int64 = 1 << 40

    // Encodes `null` for no limit (the API's documented shape), not an absent key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bytesPerSecond, forKey: .bytesPerSecond)
    }

    private enum CodingKeys: String, CodingKey {
        case bytesPerSecond
    }
}
