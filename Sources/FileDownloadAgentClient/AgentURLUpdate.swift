public import Foundation

/// The body of `PUT /v1/downloads/{id}/url`: the URL a download fetches from now on, and when it
/// expires (RFC 3339; absent: it does not).
public struct AgentURLUpdate: Codable, Sendable, Hashable {
    public var url: String
    /// When the URL stops working, as RFC 3339 (`2026-11-23T06:00:00Z`); `nil`: it does not expire.
    public var expiresAt: String?

    public init(url: URL, expiresAt: Date? = nil) {
        self.url = url.absoluteString
        self.expiresAt = expiresAt.map { Self.format($0) }
    }

    /// `date` as RFC 3339 with fractional seconds, in UTC.
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// `text` as a date: RFC 3339 with or without fractional seconds; `nil` when it is not one.
    public static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
