public import FileDownload

/// One challenge a ``MockTransport`` puts to `TransferRequest.authenticate(_:)` before it serves
/// a resource, and the answer it accepts.
///
/// Answers and what follows:
/// - `AuthDisposition.useCredential(_:)` with a credential equal to ``accepted``: passed.
///   Another credential counts as a failure; the challenge is asked again with
///   `AuthChallenge.previousFailureCount` one higher, up to ``maxFailures`` failures, then the
///   attempt fails with `DownloadError.Code.authenticationFailed`, not retryable.
/// - `AuthDisposition.trust(remember:)`: passed when ``accepted`` is `nil` (a trust question),
///   otherwise a failure as above.
/// - `AuthDisposition.reject`: the attempt fails at once, not retryable, with
///   `DownloadError.Code.authenticationFailed` (credential challenges),
///   `DownloadError.Code.tlsFailure` (`AuthChallenge.Kind.serverTrust(host:port:reason:)`) or
///   `DownloadError.Code.hostKeyUnknown` (`AuthChallenge.Kind.unknownHostKey(host:port:keyType:fingerprint:)`).
/// - `AuthDisposition.performDefaultHandling`: the user and password of the URL, when it has
///   them, are tried as a `Credential.password(user:password:)`; otherwise the same as `reject`.
public struct MockAuthentication: Sendable, CustomStringConvertible {
    /// The challenge asked.
    public var challenge: AuthChallenge.Kind
    /// The credential that passes; `nil` for a trust question, which `.trust` passes.
    public var accepted: Credential?
    /// Wrong credentials tolerated before the attempt fails.
    public var maxFailures: Int

    public init(challenge: AuthChallenge.Kind, accepted: Credential?, maxFailures: Int = 3) {
        self.challenge = challenge
        self.accepted = accepted
        self.maxFailures = max(1, maxFailures)
    }

    /// An HTTP 401 (`Basic`, realm `mock`) that only `credential` passes.
    public static func credential(
        _ credential: Credential,
        challenge: AuthChallenge.Kind = .httpServer(scheme: "Basic", realm: "mock")
    ) -> MockAuthentication {
        MockAuthentication(challenge: challenge, accepted: credential)
    }

    /// A trust question (TLS server trust, unknown SSH host key) that only `.trust` passes.
    public static func trust(_ challenge: AuthChallenge.Kind) -> MockAuthentication {
        MockAuthentication(challenge: challenge, accepted: nil)
    }

    public var description: String {
        "\(challenge) accepting \(accepted.map(String.init(describing:)) ?? "trust")"
    }
}
