public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks a transport whether a remote file is still the one a completed download fetched, without
/// downloading it again (what `fdl get -N` does).
///
/// The check is one attempt of the transport's resume logic at the very end of the file: an
/// offset equal to the file's length, which is also the expected length, with the validator the
/// download recorded (HTTP: `Range: bytes=LENGTH-1-`, the last byte, with `If-Range`; SFTP: the
/// size and mtime). The transport reports ``ResumeDisposition/complete`` only when the remote
/// file still has that length and nothing contradicts the validator (an HTTP 206 of that one
/// byte whose `Content-Range` names the length, under the same validator and content coding; an
/// SFTP file of that size and mtime). Any other head means the file changed (HTTP: a 200 to the
/// `If-Range`); the exchange is stopped before its first body byte. The file itself is never opened: the attempt writes into an empty, sparse
/// scratch file of that length in `scratchDirectory`, removed afterwards, and no byte is written
/// to it either way.
public enum RemoteFileCheck {
    /// What the check found.
    public enum Outcome: Sendable, Hashable {
        /// The remote file has the recorded length and validator: nothing to fetch.
        case unchanged
        /// The remote file is another one (another length or validator), described by the head
        /// the server answered with.
        case changed(TransferHead)
    }

    /// Checks `url` against the recorded `length` and `validator`.
    ///
    /// - Parameters:
    ///   - url: the remote file.
    ///   - length: the length of the completed file.
    ///   - validator: the validator the download recorded; `nil` compares the length only.
    ///   - options: the transfer options of the download (headers, timeouts, proxy).
    ///   - transport: the transport for `url`'s scheme.
    ///   - scratchDirectory: an existing directory for the scratch file (on the same file system
    ///     as the downloads, e.g. a state directory).
    ///   - authenticate: answers auth challenges, as ``TransferRequest/authenticate(_:)``.
    /// - Throws: the transport's ``DownloadError`` when the server could not be asked (no
    ///   connection, a 404: the error of the status), or a file-system error for the scratch file.
    public static func check(
        url: URL, length: Int64, validator: Validator?, options: TransferOptions = TransferOptions(),
        transport: any Transport, scratchDirectory: URL,
        authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling }
    ) async throws -> Outcome {
        let scratch = try makeScratchFile(length: length, in: scratchDirectory, prefix: ".check-")
        defer { unlink(scratch) }

        let seen = Mutex<TransferHead?>(nil)
        let sink = try TransferSink(path: scratch, requestedOffset: max(0, length)) { head in
            seen.withLock { $0 = head }
            if Self.isUnchanged(head, length: length, validator: validator) { return }
            // A refused status is the error of the status, as for a download.
            try Downloader.checkHead(head, id: "check", expectedSize: nil, delegate: nil)
            throw DownloadError(.cancelled, "the remote file changed; the check stops before the body")
        }
        defer { sink.seal() }
        let request = TransferRequest(
            downloadID: "check-\(UUID().uuidString)", url: url, offset: sink.requestedOffset,
            validator: sink.requestedOffset > 0 ? validator : nil,
            expectedLength: sink.requestedOffset > 0 ? length : nil, options: options, authenticate: authenticate)
        do {
            try await transport.transfer(request, into: sink)
        } catch {
            guard let head = seen.withLock({ $0 }), !isUnchanged(head, length: length, validator: validator),
                  Downloader.acceptsByDefault(head.statusCode) else { throw error }
            return .changed(head)
        }
        guard let head = seen.withLock({ $0 }) else {
            throw DownloadError(.protocolViolation, "the transport finished without reporting a head")
        }
        return isUnchanged(head, length: length, validator: validator) ? .unchanged : .changed(head)
    }

    /// Creates an empty, sparse file of `length` bytes (0 when negative) named `prefix` and a UUID
    /// in `directory`, and returns its path; the caller removes it. Nothing is left when it fails.
    ///
    /// - Throws: ``DownloadError/Code/fileSystem`` when it cannot be created or sized.
    static func makeScratchFile(length: Int64, in directory: URL, prefix: String) throws -> String {
        let scratch = directory.appendingPathComponent(prefix + UUID().uuidString).path
        let fd = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DownloadError.fileSystem(errno: errno, "cannot create the scratch file \(scratch)") }
        let sized = ftruncate(fd, off_t(max(0, length))) == 0
        let sizeErrno = errno
        close(fd)
        guard sized else {
            unlink(scratch)
            throw DownloadError.fileSystem(errno: sizeErrno, "cannot size the scratch file \(scratch)")
        }
        return scratch
    }

    /// Whether `head` (of a request at offset `length`) says the remote file is the recorded one:
    /// ``ResumeDisposition/complete``, or for an empty file a plain answer of length 0 with the same
    /// validator (an empty file has no range to ask for).
    static func isUnchanged(_ head: TransferHead, length: Int64, validator: Validator?) -> Bool {
        if head.disposition == .complete { return true }
        guard length == 0, Downloader.acceptsByDefault(head.statusCode) else { return false }
        return head.expectedLength == 0 && head.validator == validator
    }
}
