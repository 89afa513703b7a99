/// What a failure means: the one table the ``Downloader`` looks every failed attempt up in, whatever
/// its transport. docs/states.md ("What a failure means") shows the same table, row by row, with
/// the reason for each row; a test checks the two against each other.
///
/// The order of the downloader's decisions after a failed attempt: a full disk waits for space
/// (rows 17, 36), a refusal of a download that began asks for a fresh URL (row 39), a download
/// with mirrors tries its next URL (a pass counts as ``FailureClass/retry`` when any of its
/// failures did), and then this table decides:
/// - ``FailureClass/retry``: the failure says the server, or the way to it, may answer next time
///   (a server that connected and went silent is slow, not gone): retry after the backoff,
///   resuming at the bytes on disk, counted against ``RetryPolicy/maxRetries``;
/// - ``FailureClass/waitForNetwork``: the machine has no way out: wait for the network without
///   using a retry, bounded by ``DownloaderConfiguration/maxNetworkWait``;
/// - ``FailureClass/failNow``: another attempt cannot help (a name the resolver says does not
///   exist while the network works, a 4xx, TLS, ...): fail at once, keeping the bytes.
///
/// The waits for a retry and for the network are bounded: the resource timeout
/// (``TransferOptions/resourceTimeout``) counts the time spent downloading and the time spent
/// waiting for a retry or for the network. A wait for disk space is not counted (yet): it ends
/// when there is room, or by `pause` or `cancel`.
public enum FailurePolicy {
    /// One row of the table.
    public struct Rule: Sendable, Hashable {
        public let kind: FailureKind
        public let failureClass: FailureClass
    }

    /// The table, in the order docs/states.md shows it.
    public static let table: [Rule] = [
        Rule(kind: .connectionRefused, failureClass: .retry),
        Rule(kind: .connectTimedOut, failureClass: .retry),
        Rule(kind: .connectionFailed, failureClass: .retry),
        Rule(kind: .noRoute, failureClass: .waitForNetwork),
        Rule(kind: .nameNotResolvedOffline, failureClass: .waitForNetwork),
        Rule(kind: .nameDoesNotExist, failureClass: .failNow),
        Rule(kind: .timedOut, failureClass: .retry),
        Rule(kind: .connectionLost, failureClass: .retry),
        Rule(kind: .transferStopped, failureClass: .retry),
        Rule(kind: .serverBusy, failureClass: .retry),
        Rule(kind: .clientError, failureClass: .failNow),
        Rule(kind: .resourceTimedOut, failureClass: .failNow),
        Rule(kind: .local, failureClass: .failNow),
        Rule(kind: .otherRetryable, failureClass: .retry),
        Rule(kind: .otherFinal, failureClass: .failNow),
    ]

    private static let byKind: [FailureKind: FailureClass] =
        Dictionary(uniqueKeysWithValues: table.map { ($0.kind, $0.failureClass) })

    /// The class of a kind of failure.
    public static func failureClass(of kind: FailureKind) -> FailureClass {
        byKind[kind] ?? .failNow
    }

    /// The kind and class of `error`; `hasDefaultRoute` is asked only for a name not resolved.
    public static func classify(_ error: DownloadError,
                                hasDefaultRoute: () -> Bool) -> (kind: FailureKind, failureClass: FailureClass) {
        let kind = FailureKind(error, hasDefaultRoute: hasDefaultRoute)
        return (kind, failureClass(of: kind))
    }
}
