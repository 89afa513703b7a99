/// What the ``Downloader`` does with a failure of an attempt: the right column of
/// ``FailurePolicy``'s table.
public enum FailureClass: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Try again after the retry policy's backoff (``RetryPolicy``), resuming at the bytes on
    /// disk; the retry counts against ``RetryPolicy/maxRetries``, and the download fails when
    /// none is left.
    case retry
    /// The machine has no way out (no route, the link is down, no default route): the download
    /// waits for the network (``WaitReason/waitingForNetwork``) without using a retry, for at most
    /// ``DownloaderConfiguration/maxNetworkWait``. With ``DownloaderConfiguration/waitsForNetwork``
    /// off, it is a ``retry``.
    case waitForNetwork
    /// Another attempt cannot help: the download fails at once, its bytes kept.
    case failNow

    public var description: String { rawValue }
}
