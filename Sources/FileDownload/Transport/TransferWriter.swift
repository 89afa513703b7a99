/// What a ``Transport`` writes one attempt into: the head once, then the body, paced when a rate
/// limit applies. The downloader makes one writer per attempt (per connection, for a download
/// fetched in segments) and hands it to ``Transport/transfer(_:into:)``; a transport never makes
/// one.
///
/// ## Order of calls
/// 1. ``begin(_:)`` exactly once, before the first body byte, with the ``TransferHead`` of the
///    response. It may throw (the status was rejected, a restart was refused, the file could not
///    be prepared): the transport stops and rethrows without writing a byte.
/// 2. ``write(_:)`` any number of times, in the order of the bytes, from any thread, never two at
///    once. Each write lands right after the previous one: after ``ResumeDisposition/resumed(at:)``
///    the first byte is the request's ``TransferRequest/offset``, after
///    ``ResumeDisposition/restarted(_:)`` byte zero of the resource. If it throws (disk full, more
///    bytes than the head announced, the attempt is over), the transport stops and rethrows.
/// 3. After a write, a transport listing ``TransportCapabilities/rateLimit`` waits
///    ``pacingDelay`` whenever it is above zero, on its own thread or clock, and asks again after
///    the wait.
///
/// Once ``Transport/transfer(_:into:)`` has returned or thrown, the attempt is over: every call
/// throws ``DownloadError/Code/cancelled`` and nothing reaches the file, so a transport whose I/O
/// thread lags behind a cancellation cannot change the bytes of a later attempt.
///
/// ## What the transport may rely on
/// - The bytes before the request's ``TransferRequest/offset`` are on disk when the attempt
///   starts (the downloader made the request from them); a restart drops them in ``begin(_:)``.
/// - ``write(_:)`` is one positional write of the bytes and a few atomic operations: no actor hop
///   and no allocation, so it may be called on the transport's I/O thread for every chunk.
/// - The writer is a small value over the attempt's shared state: copies of it write to the same
///   file, so it may be captured by the closures and threads of the transport.
public struct TransferWriter: Sendable {
    /// The attempt's staging file and counters, kept by the downloader.
    let sink: TransferSink

    /// A writer into `sink`. The downloader, the conformance suite and the benchmarks make one;
    /// a transport only receives it.
    package init(_ sink: TransferSink) {
        self.sink = sink
    }

    /// Reports the head of the attempt. Call exactly once, before the first ``write(_:)``.
    ///
    /// In order: refuses a second call, or a call once the attempt is over; runs the downloader's
    /// check of the head (the status, the delegate's decision, the length); then acts on
    /// ``TransferHead/disposition``: ``ResumeDisposition/resumed(at:)`` must name the request's
    /// ``TransferRequest/offset`` and keeps the bytes on disk; ``ResumeDisposition/restarted(_:)``
    /// cuts the file to zero (a writer that takes only a range refuses it);
    /// ``ResumeDisposition/complete`` keeps the bytes and refuses any body. When the head
    /// announces a total length with many bytes still to come, disk space for them may be
    /// reserved; that changes no byte.
    ///
    /// - Throws: ``DownloadError``; the transport must stop and rethrow it.
    public func begin(_ head: TransferHead) throws {
        try sink.begin(head)
    }

    /// Writes `bytes` right after the bytes written so far (one `pwrite(2)`).
    ///
    /// An empty buffer does nothing. The bytes are taken from the attempt's rate limit, if it has
    /// one; read ``pacingDelay`` after the call.
    ///
    /// - Throws: ``DownloadError`` with code ``DownloadError/Code/diskFull`` (ENOSPC),
    ///   ``DownloadError/Code/fileTooLarge`` (EFBIG), ``DownloadError/Code/fileSystem`` (other
    ///   errors), ``DownloadError/Code/protocolViolation`` (no head yet, a body after
    ///   ``ResumeDisposition/complete``, more bytes than the head announced, or a resumed body past
    ///   the request's ``TransferRequest/end``) or ``DownloadError/Code/cancelled`` (the attempt is
    ///   over, or the connection's share of a segmented download is complete: another connection
    ///   fetches the rest). Stop and rethrow. Nothing is written when it throws, except the bytes
    ///   before a disk error or before the end of the connection's share.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try sink.write(bytes)
    }

    /// The head that ``begin(_:)`` accepted, or `nil` before that (or when it threw): a transport
    /// may ask it to tell whether anything of the attempt reached the file.
    public var head: TransferHead? { sink.head }

    /// How long the transport should wait before it reads more body bytes, so that the transfers
    /// sharing a limit (the download's own ``TransferOptions/maxBytesPerSecond`` inside the
    /// downloader's overall limit) stay within it. Zero without a limit, before the first write,
    /// or once the wait is over.
    ///
    /// A transport listing ``TransportCapabilities/rateLimit`` reads it after each ``write(_:)``
    /// and waits that long (on its own thread or clock, never blocking another transfer), then may
    /// read it again. The wait is the one this writer's last write got from the limiter, so the
    /// transfers sharing it are served in turn; it counts down as the limiter's clock moves, and
    /// when the limit is raised it shortens at once.
    public var pacingDelay: Duration { sink.pacingDelay }

    /// Whether the download's own rate budget paces the writes now (an overall limit alone does
    /// not count: every download shares it anyway). A transport may then read over one connection
    /// only, so that the budget is not split over reads it cannot pace (the SFTP transport's
    /// parallel reads).
    package var isPaced: Bool { sink.isPaced }
}
