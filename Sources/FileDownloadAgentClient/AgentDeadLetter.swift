public import FileDownload
public import Foundation

/// A delivery whose lifetime ended unacknowledged (`GET /v1/deliveries/dead`; `docs/agent-api.md`,
/// "Completions delivered until acknowledged"): the agent no longer tries it, and it no longer
/// holds up the download's later deliveries, until it is retried
/// (``DownloadAgentClient/retryDeadLetter(_:)``) or dropped
/// (``DownloadAgentClient/dropDeadLetter(_:)``).
public struct AgentDeadLetter: Decodable, Sendable {
    /// Where a delivery goes.
    public enum Kind: String, Codable, Sendable {
        /// A `POST` to a URL, acknowledged by a 2xx answer.
        case webhook
        /// A command run with `/bin/sh -c`, acknowledged by exit status 0.
        case command
    }

    /// How the API names it: `SEQUENCE-KIND` (`42-webhook`), the `key` of the retry and drop calls.
    public var key: String
    /// The event's sequence number in the journal: the webhook's `Idempotency-Key`, the
    /// command's `FDL_SEQUENCE`.
    public var sequence: Int64
    /// The download's id.
    public var id: String
    public var kind: Kind
    /// The webhook's URL or the command line.
    public var target: String
    /// The event delivered (`completed` or `failed`); `nil` when this client cannot decode it.
    public var event: DownloadEvent?
    /// The tries made since ``createdAt``.
    public var attempts: Int
    /// What the last try got, in words (`the webhook answered 503`, a TLS or connection failure,
    /// the command's exit status).
    public var lastError: String?
    /// When the delivery was made (its lifetime started), or last retried.
    public var createdAt: Date
    /// When it became a dead letter.
    public var deadAt: Date?

    private enum CodingKeys: String, CodingKey {
        case key, sequence, id, kind, target, event, attempts, lastError, createdAt, deadAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        sequence = try container.decode(Int64.self, forKey: .sequence)
        id = try container.decode(String.self, forKey: .id)
        kind = try container.decode(Kind.self, forKey: .kind)
        target = try container.decode(String.self, forKey: .target)
        event = try? container.decodeIfPresent(DownloadEvent.self, forKey: .event)
        attempts = try container.decode(Int.self, forKey: .attempts)
        lastError = try container.decodeIfPresent(String.self, forKey: .lastError)
        func date(_ key: CodingKeys) throws -> Date? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let date = AgentURLUpdate.parseDate(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not an RFC 3339 date: \(text)")
            }
            return date
        }
        guard let created = try date(.createdAt) else {
            throw DecodingError.keyNotFound(CodingKeys.createdAt, .init(codingPath: container.codingPath, debugDescription: "no createdAt"))
        }
        createdAt = created
        deadAt = try date(.deadAt)
    }
}
