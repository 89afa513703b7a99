/// The answer to an ``AuthChallenge``.
public enum AuthDisposition: Sendable {
    /// Use this credential.
    case useCredential(Credential)
    /// Trust the server (TLS) or host key (SSH) although it could not be verified;
    /// `remember: true` also records an SSH host key in the known-hosts file.
    case trust(remember: Bool)
    /// Do not go on: the attempt fails with ``DownloadError/Code/authenticationFailed``,
    /// ``DownloadError/Code/tlsFailure`` or ``DownloadError/Code/hostKeyUnknown``, not retryable.
    case reject
    /// What happens without a delegate: credentials from the URL or the transport's configuration
    /// when it has them, otherwise the same as ``reject``. Servers are never trusted by default.
    case performDefaultHandling
}
