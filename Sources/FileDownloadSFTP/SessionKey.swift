/// What a pooled session may be reused for: the same server, user and credential identity.
struct SessionKey: Hashable, Sendable {
    var host: String
    var port: Int
    var user: String
    /// Names how the session authenticated without holding a secret: empty for the
    /// configured methods, `password:<digest>` for a URL password, `key:<path>`, `agent`.
    var credentialIdentity: String

    var endpoint: Endpoint { Endpoint(host: host, port: port) }

    /// A server: the unit the per-host session bound counts.
    struct Endpoint: Hashable, Sendable {
        var host: String
        var port: Int
    }
}
