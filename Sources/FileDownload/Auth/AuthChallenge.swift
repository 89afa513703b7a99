public import Foundation

/// A question a transport asks before it can go on: credentials, or whether to trust a server.
///
/// Every kind of authentication goes through this one door
/// (``TransferRequest/authenticate(_:)`` → ``DownloaderDelegate/download(_:didReceive:)``).
public struct AuthChallenge: Sendable, CustomStringConvertible {
    /// What is being asked.
    public enum Kind: Sendable, Hashable {
        /// HTTP 401: the server wants credentials (`scheme` is `Basic`, `Digest`, `Bearer`, ...).
        case httpServer(scheme: String, realm: String?)
        /// HTTP 407: the proxy wants credentials.
        case httpProxy(scheme: String, realm: String?)
        /// TLS verification of the server failed; answer ``AuthDisposition/trust(remember:)`` to go
        /// on anyway, anything else fails the attempt with ``DownloadError/Code/tlsFailure``.
        case serverTrust(host: String, port: Int, reason: String)
        /// The SSH host key is not in the known hosts. `fingerprint` is `SHA256:<base64>`.
        /// ``AuthDisposition/trust(remember:)`` accepts it (and records it when `remember`).
        case unknownHostKey(host: String, port: Int, keyType: String, fingerprint: String)
        /// SSH password for `user`.
        case password(user: String)
        /// The passphrase of an SSH private key file.
        case keyPassphrase(keyFile: String)
        /// SSH keyboard-interactive: answer with ``Credential/responses(_:)``, one per prompt.
        case keyboardInteractive(name: String, instruction: String, prompts: [String])
        /// The user name and method for SSH when the URL names no user.
        case sshUser
    }

    public var kind: Kind
    /// The URL of the download that caused the challenge.
    public var url: URL
    /// How many times this kind of challenge already failed in this attempt (0 the first time).
    public var previousFailureCount: Int

    public init(kind: Kind, url: URL, previousFailureCount: Int = 0) {
        self.kind = kind
        self.url = url
        self.previousFailureCount = previousFailureCount
    }

    public var description: String { "\(kind) for \(url.redactingPassword) (failures: \(previousFailureCount))" }
}
