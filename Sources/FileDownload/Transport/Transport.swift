/// Moves the bytes of one remote resource into a ``TransferWriter``, starting at an offset.
///
/// A transport knows one protocol (HTTP, SFTP, your own); the ``Downloader`` knows none. One call of
/// ``transfer(_:into:)`` is one *attempt*. The downloader decides when to call it again (retries,
/// resume after pause) and with which offset and validator.
///
/// ## What a call must do, in this order
/// 1. Connect and ask for the resource at ``TransferRequest/url``. When
///    ``TransferRequest/offset`` is above zero, ask for the bytes from there on, conditional on
///    ``TransferRequest/validator`` (HTTP: `Range` + `If-Range` with a strong validator; SFTP:
///    compare size and mtime, then seek).
/// 2. When the server needs credentials or trust (HTTP 401/407, TLS server trust, SSH host key,
///    password, key passphrase, keyboard-interactive), ask ``TransferRequest/authenticate(_:)`` and
///    follow its ``AuthDisposition``. Never log a credential and never put one in the head.
/// 3. Before the first body byte, call ``TransferWriter/begin(_:)`` exactly once with a
///    ``TransferHead``: the status, the total length if known, the current validator, and what
///    happened to the offset: ``ResumeDisposition/resumed(at:)`` (the bytes that follow start at
///    the requested offset), ``ResumeDisposition/restarted(_:)`` (the bytes that follow start at
///    zero: the server ignored the range or the remote file changed) or
///    ``ResumeDisposition/complete`` (nothing is left to send). `begin` may throw (the status was
///    rejected, the disk is unusable): stop and rethrow. A transport must never deliver bytes of a
///    changed remote file as a continuation of old bytes.
/// 4. Deliver the body with ``TransferWriter/write(_:)`` from any thread, in order. If `write` throws
///    (disk full), stop and rethrow. A transport listing ``TransportCapabilities/rateLimit`` waits
///    ``TransferWriter/pacingDelay`` after a write whenever it is above zero (the download's budget and
///    the downloader's overall limit), without blocking other transfers, and asks again after the
///    wait.
/// 5. Return when the resource is complete. Throw a ``DownloadError`` otherwise, with the
///    ``DownloadError/Code`` the failure maps to and a correct ``DownloadError/isRetryable``.
///
/// ## Ranges
/// A transport that lists ``TransportCapabilities/ranges`` honours ``TransferRequest/end``: the
/// attempt asks for the bytes `offset ..< end` only (HTTP: `Range: bytes=OFFSET-(END-1)`; SFTP:
/// seek and read up to the end). The steps above hold, with these rules for the head and body:
/// - ``ResumeDisposition/resumed(at:)`` at the offset only when the server sends the bytes from
///   the offset of the resource the request's ``TransferRequest/validator`` names (and whose
///   length is ``TransferRequest/expectedLength``, when given) — at offset 0 too: with an end the
///   validator is checked at every offset. The body is then exactly the bytes
///   `offset ..< min(end, length)`: a range reaching past the end of the resource stops at its
///   end, and the head's ``TransferHead/expectedLength`` says where that is.
/// - When the server ignores the range (HTTP 200 with the whole body) or the resource no longer
///   matches the validator, the head says ``ResumeDisposition/restarted(_:)`` with
///   ``RestartReason/rangeIgnored`` or ``RestartReason/validatorChanged``, and what follows is the
///   whole resource from byte zero, exactly as for a resume (the end no longer applies). Bytes of
///   another place or another version are never delivered as the range. The downloader decides
///   what to do with a restart: a writer that cannot take the whole resource (a segment of a file)
///   refuses the head by throwing from ``TransferWriter/begin(_:)``, and the transport stops and
///   rethrows without delivering a byte.
/// - A range that starts at or past the end of the resource (the offset is at least its length)
///   fails with ``DownloadError/Code/rangeNotSatisfiable``, not retryable, without calling
///   ``TransferWriter/begin(_:)``: nothing is written. ``ResumeDisposition/complete`` is never the
///   answer to a ranged request.
/// - A server that answers another range than the one asked for fails the attempt with a
///   retryable ``DownloadError/Code/protocolViolation`` before any byte, as for a resume.
///
/// A transport without the capability is never sent an end, so a custom transport written before
/// ranges existed keeps working unchanged: its downloads use one connection each.
///
/// ## Cancellation
/// The call runs in a Swift task; the downloader cancels that task to pause or cancel the
/// download. The transport must notice within tens of milliseconds, stop the transfer, and throw
/// `CancellationError` or a ``DownloadError`` with code ``DownloadError/Code/cancelled``. After the
/// call returns or throws, it must not touch the writer again: the attempt is over, and a late
/// ``TransferWriter/write(_:)`` throws and changes nothing (the downloader counts it; the
/// conformance suite fails a transport that makes one).
///
/// ## Threads
/// Never block Swift's cooperative thread pool with blocking I/O: run blocking or polling work on a
/// thread of your own and await it. The body path (step 4) must not hop actors or allocate per chunk.
///
/// ## Testing a transport
/// Run it through `TransportConformance` (module `FileDownloadConformance`) against a server that
/// serves a known file. `MockTransport` (module `FileDownloadMock`) passes it and is the model of a
/// minimal, complete transport.
public protocol Transport: Sendable {
    /// What this transport supports. The downloader only asks for what is listed here.
    var capabilities: TransportCapabilities { get }

    /// Performs one attempt. See the protocol's documentation for the contract.
    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws

    /// Releases pooled connections and threads. Called by ``Downloader/shutdown()``; the default
    /// does nothing. After it returns, the transport is not used again by that downloader.
    func shutdown() async
}

extension Transport {
    public func shutdown() async {}

    /// Performs one attempt into `sink`'s writer: how the downloader, the conformance suite and
    /// the benchmarks drive a transport.
    package func transfer(_ request: TransferRequest, into sink: TransferSink) async throws {
        try await transfer(request, into: sink.writer)
    }
}
