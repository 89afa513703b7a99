/// The kind of a failed attempt, as ``FailurePolicy`` tells them apart: the left column of its
/// table. Made from a ``DownloadError`` by ``init(_:hasDefaultRoute:)``.
public enum FailureKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The host answered and refused the connection (``ConnectionFailure/refused``).
    case connectionRefused
    /// No route to the host, network or host unreachable, link down
    /// (``ConnectionFailure/unreachable``).
    case noRoute
    /// The connection (or the name lookup before it) was not answered within the connect
    /// timeout while a route exists (``ConnectionFailure/timedOut``).
    case connectTimedOut
    /// A connection failure the transport does not describe (no ``ConnectionFailure``).
    case connectionFailed
    /// The name was not resolved while the machine has a default route: the resolver answered
    /// that the name does not exist.
    case nameDoesNotExist
    /// The name was not resolved and the machine has no default route: the resolver cannot be
    /// reached.
    case nameNotResolvedOffline
    /// The server connected, then sent no byte for the request timeout
    /// (``DownloadError/Code/timedOut``).
    case timedOut
    /// The connection broke during the transfer (``DownloadError/Code/connectionLost``).
    case connectionLost
    /// The transfer stopped by itself (``DownloadError/Code/cancelled`` that the downloader did
    /// not ask for).
    case transferStopped
    /// The server answered 408, 429 or 5xx.
    case serverBusy
    /// The server answered another 4xx (404, 403, 401, 410, 416, ...).
    case clientError
    /// The download's time ran out (``DownloadError/Code/resourceTimedOut``).
    case resourceTimedOut
    /// A failure of the local side: file system, full disk, file too large, validation, store.
    case local
    /// Any other failure the transport marks retryable (``DownloadError/isRetryable``), such as
    /// a broken protocol (``DownloadError/Code/protocolViolation``).
    case otherRetryable
    /// Any other failure the transport marks final: TLS, host keys, redirects, a malformed URL,
    /// failed authentication, an encoding refused.
    case otherFinal

    public var description: String { rawValue }

    /// The kind of `error`. `hasDefaultRoute` is asked only for a name not resolved
    /// (``ConnectionFailure/nameNotResolved``), once.
    public init(_ error: DownloadError, hasDefaultRoute: () -> Bool) {
        switch error.code {
        case .cancelled:
            self = .transferStopped
        case .resourceTimedOut:
            self = .resourceTimedOut
        case .fileSystem, .diskFull, .fileTooLarge, .validationFailed, .store, .invalidDestination, .maxFileSizeExceeded:
            self = .local
        case .connectionFailed:
            switch error.connectionFailure {
            case .refused?: self = .connectionRefused
            case .unreachable?: self = .noRoute
            case .timedOut?: self = .connectTimedOut
            case .nameNotResolved?: self = hasDefaultRoute() ? .nameDoesNotExist : .nameNotResolvedOffline
            case nil: self = .connectionFailed
            }
        case .timedOut:
            self = .timedOut
        case .connectionLost:
            self = .connectionLost
        case .protocolViolation:
            // A server that broke the protocol (a range refused or answered with other bytes than
            // asked, carrying a 4xx such as 416) is not a client error: the transport says whether
            // the next attempt, from zero, can help.
            self = error.isRetryable ? .otherRetryable : .otherFinal
        default:
            if let status = error.statusCode, status == 408 || status == 429 || (500..<600).contains(status) {
                self = .serverBusy
            } else if let status = error.statusCode, (400..<500).contains(status) {
                self = .clientError
            } else {
                self = error.isRetryable ? .otherRetryable : .otherFinal
            }
        }
    }
}
