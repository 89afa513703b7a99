/// One request header field.
public struct HeaderField: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Whether the value is a secret: `Authorization`, `Proxy-Authorization` and `Cookie` are.
    /// Sensitive fields are never persisted, logged or put in resume data.
    public var isSensitive: Bool {
        switch name.lowercased() {
        case "authorization", "proxy-authorization", "cookie": true
        default: false
        }
    }

    public var description: String { isSensitive ? "\(name): <redacted>" : "\(name): \(value)" }
}
