/// One request header field.
public struct HeaderField: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String
    public var value: String
    /// The caller marked the value a secret (an API key, a token in a field of its own). It is
    /// then handled like the fields ``isSensitive`` knows by name. Not part of the encoded form:
    /// ``TransferOptions`` leaves every sensitive field out of its encoding.
    public var isSecret = false

    /// A field; `isSecret` marks a value that must never be persisted or logged.
    public init(name: String, value: String, isSecret: Bool = false) {
        self.name = name
        self.value = value
        self.isSecret = isSecret
    }

    /// Whether the value is a secret: marked ``isSecret``, or `Authorization`,
    /// `Proxy-Authorization` or `Cookie`. Sensitive fields are never persisted, logged or put in
    /// resume data.
    public var isSensitive: Bool {
        if isSecret { return true }
        switch name.lowercased() {
        case "authorization", "proxy-authorization", "cookie": return true
        default: return false
        }
    }

    public var description: String { isSensitive ? "\(name): <redacted>" : "\(name): \(value)" }

    private enum CodingKeys: String, CodingKey {
        case name, value
    }
}
