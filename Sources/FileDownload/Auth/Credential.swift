/// A secret that answers an ``AuthChallenge``. Its description never shows the secret.
public enum Credential: Sendable, CustomStringConvertible {
    /// A user name and password (HTTP Basic/Digest, SSH password).
    case password(user: String, password: String)
    /// A bearer token (HTTP `Authorization: Bearer`).
    case bearerToken(String)
    /// An SSH private key file, with its passphrase if it has one.
    case privateKey(user: String, privateKeyFile: String, passphrase: String?)
    /// The keys of the running ssh-agent (`SSH_AUTH_SOCK`).
    case agent(user: String)
    /// A passphrase (answer to ``AuthChallenge/Kind/keyPassphrase(keyFile:)``).
    case passphrase(String)
    /// Answers to keyboard-interactive prompts, in prompt order.
    case responses([String])
    /// A TLS client certificate and key (PEM files).
    case clientCertificate(certificateFile: String, keyFile: String, passphrase: String?)

    public var description: String {
        switch self {
        case .password(let user, _): "password for \(user) (redacted)"
        case .bearerToken: "bearer token (redacted)"
        case .privateKey(let user, let file, _): "private key \(file) for \(user)"
        case .agent(let user): "ssh-agent for \(user)"
        case .passphrase: "passphrase (redacted)"
        case .responses(let r): "\(r.count) keyboard-interactive responses (redacted)"
        case .clientCertificate(let cert, _, _): "client certificate \(cert)"
        }
    }
}
