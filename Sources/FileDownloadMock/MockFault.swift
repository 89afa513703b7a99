public import FileDownload

/// A failure a scripted ``MockAttempt`` injects at a byte offset of the resource.
///
/// The attempt first writes the body up to `offset` (nothing when it starts at or beyond it),
/// then fails. Offsets are positions in the resource, not in the attempt's body.
public enum MockFault: Sendable, CustomStringConvertible {
    /// The connection breaks: throws `DownloadError.Code.connectionLost`, retryable.
    case drop(at: Int64)
    /// The server goes silent: no further byte until the transfer's task is cancelled, then
    /// `CancellationError`. The silence waits on the transport's clock, a year at a time, so on a
    /// ``ManualClock`` a test sees the stalled transfer in ``ManualClock/sleeperCount``.
    case stall(at: Int64)
    /// Throws `error` as it is.
    case error(at: Int64, DownloadError)

    /// Where the fault happens.
    public var offset: Int64 {
        switch self {
        case .drop(let offset), .stall(let offset), .error(let offset, _): offset
        }
    }

    public var description: String {
        switch self {
        case .drop(let offset): "drop at \(offset)"
        case .stall(let offset): "stall at \(offset)"
        case .error(let offset, let error): "error at \(offset): \(error)"
        }
    }
}
