public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RemoteFileCheck {
    /// Asks the server for `url` as a download attempt would, from `offset` under `validator`,
    /// and returns the head it answers with, without keeping a byte of the body (what `fdl get
    /// --spider` and `fdl get -c` on a file fdl did not make ask).
    ///
    /// The attempt is stopped before its first body byte (HTTP: a `GET`, with
    /// `Range: bytes=OFFSET-` and `If-Range` when `offset` is above zero, as in a resume). It
    /// writes into an empty, sparse scratch file of `offset` bytes in `scratchDirectory`, removed
    /// afterwards; no file of the caller is opened. The head's ``TransferHead/disposition`` tells
    /// what a download would do with bytes on disk up to `offset`:
    /// ``ResumeDisposition/resumed(at:)`` at `offset` (the server continues them under
    /// `validator`), ``ResumeDisposition/complete`` (they are the whole file) or
    /// ``ResumeDisposition/restarted(_:)`` (it would start from zero, and why).
    ///
    /// - Parameters:
    ///   - url: the remote file.
    ///   - offset: the bytes on disk to ask about; 0 asks for the whole file.
    ///   - validator: what the bytes on disk belong to (HTTP: sent in `If-Range` when strong).
    ///   - options: the transfer options of the download (headers, timeouts, proxy).
    ///   - transport: the transport for `url`'s scheme.
    ///   - scratchDirectory: an existing directory for the scratch file.
    ///   - authenticate: answers auth challenges, as ``TransferRequest/authenticate(_:)``.
    /// - Throws: the error a download would fail with for the answer (a 404: ``DownloadError/Code/notFound``,
    ///   refused by the status check before the body), the transport's error when the server could not be
    ///   asked, or a file-system error for the scratch file.
    public static func head(
        url: URL, offset: Int64 = 0, validator: Validator? = nil, options: TransferOptions = TransferOptions(),
        transport: any Transport, scratchDirectory: URL,
        authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling }
    ) async throws -> TransferHead {
        let scratch = try makeScratchFile(length: offset, in: scratchDirectory, prefix: ".head-")
        defer { unlink(scratch) }

        let seen = Mutex<TransferHead?>(nil)
        let sink = try TransferSink(path: scratch, requestedOffset: max(0, offset)) { head in
            // A refused status is the error of the status, as for a download.
            try Downloader.checkHead(head, id: "head", expectedSize: nil, delegate: nil)
            seen.withLock { $0 = head }
            if head.disposition == .complete { return }
            throw DownloadError(.cancelled, "the head is all that was asked for; the body is not read")
        }
        defer { sink.seal() }
        let request = TransferRequest(
            downloadID: "head-\(UUID().uuidString)", url: url, offset: sink.requestedOffset,
            validator: sink.requestedOffset > 0 ? validator : nil, options: options, authenticate: authenticate)
        do {
            try await transport.transfer(request, into: sink)
        } catch {
            guard let head = seen.withLock({ $0 }) else { throw error }
            return head
        }
        guard let head = seen.withLock({ $0 }) else {
            throw DownloadError(.protocolViolation, "the transport finished without reporting a head")
        }
        return head
    }
}
