import Foundation

/// The key that signs the agent's webhooks. It prints as `<webhook secret>`, so a log line or an
/// error message that shows a configuration never shows it.
public struct DeliverySecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key's bytes (the secret's UTF-8).
    let key: Data

    /// A secret from its text (for instance a file's content with the final line break removed).
    public init(_ text: String) {
        key = Data(text.utf8)
    }

    public var description: String { "<webhook secret>" }
    public var debugDescription: String { description }
}
