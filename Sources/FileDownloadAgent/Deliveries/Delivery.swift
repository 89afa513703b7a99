import Foundation

/// One delivery of a journalled `completed` or `failed` event to one webhook or command: kept
/// in `STATE/deliveries.json` from the moment the agent looks at the event until it is
/// acknowledged (then forgotten), or moved to the dead letters when its lifetime ends.
struct Delivery: Codable, Sendable, Hashable {
    enum Kind: String, Codable, Sendable, CaseIterable {
        case webhook
        case command
    }

    /// The event's sequence number in the journal (with ``instance``, the idempotency key).
    var sequence: Int64
    var downloadID: String
    var kind: Kind
    /// The webhook's URL or the command line.
    var target: String
    /// The event's JSON, as journalled (the webhook's body).
    var event: String
    /// When the delivery was made (its lifetime starts), or retried from the dead letters.
    var createdAt: Date
    /// Tries made so far (since ``createdAt``).
    var attempts: Int = 0
    /// What the last try got, in words.
    var lastError: String?
    /// When it was moved to the dead letters.
    var deadAt: Date?
    /// The journal's instance (``DeliveryFile/instance``) when the delivery was made; `nil` in a
    /// file older than instances.
    var instance: String? = nil

    /// The webhook's `Idempotency-Key`: `INSTANCE-SEQUENCE` (`3f2a9c0d1e4b5a67-42`), unique across
    /// journals (a new `agent.sqlite` starts its sequence numbers again, with a new instance).
    var idempotencyKey: String { instance.map { "\($0)-\(sequence)" } ?? String(sequence) }

    /// How the API names it: `SEQUENCE-KIND` (`42-webhook`), unique as one event has at most one
    /// delivery of each kind.
    var key: String { "\(sequence)-\(kind.rawValue)" }
}
