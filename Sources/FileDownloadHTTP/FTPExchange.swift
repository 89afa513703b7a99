internal import CCurl
import FileDownload
import Foundation

/// What one FTP exchange (login, `MDTM`, `SIZE`, `REST`, `RETR`) learns from the server's replies,
/// and the head it reports to the writer.
///
/// libcurl hands every reply line of the control connection to the header callback before it acts
/// on it; the exchange keeps the `213` replies (`MDTM`'s, then `SIZE`'s: libcurl always asks in that
/// order) and checks the remembered validator when the server accepts `REST`, before `RETR` is
/// sent: a changed file is never read from the offset. Touched only by the I/O thread while the
/// transfer runs (like ``CurlTransfer``), by the task after.
final class FTPExchange: @unchecked Sendable {
    /// What the attempt asked for.
    struct Context: Sendable {
        var offset: Int64
        var end: Int64?
        var validator: Validator?
        var expectedLength: Int64?
        /// Set when this exchange is the restart from zero of an attempt that could not resume.
        var restartReason: RestartReason?
    }

    let context: Context
    /// The texts after `213 ` of the replies, in order.
    private var replies213: [String] = []
    /// The last final reply line (`NNN text`), for messages.
    private(set) var lastReply = ""
    /// Whether the server accepted `REST` (`350`).
    private(set) var restAccepted = false
    /// Set when the bytes from the offset cannot be used: the attempt starts over from zero.
    private(set) var restart: RestartReason?

    init(_ context: Context) {
        self.context = context
    }

    /// Reads one reply line. Returns `false` to stop the exchange (``restart`` says why).
    func consume(line bytes: UnsafeRawBufferPointer, of transfer: CurlTransfer) -> Bool {
        consume(line: String(decoding: bytes, as: UTF8.self)) { Self.modificationTime(of: transfer) }
    }

    /// Reads one reply line; `modificationTime` is the `MDTM` time libcurl parsed so far, asked
    /// when the server accepts `REST`. Returns `false` to stop the exchange (``restart`` says why).
    func consume(line text: String, modificationTime: () -> Int64?) -> Bool {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let utf8 = Array(line.utf8)
        guard utf8.count >= 4, utf8[0...2].allSatisfy({ (0x30...0x39).contains($0) }), utf8[3] == 0x20 else {
            return true  // a continuation line of a multi-line reply
        }
        lastReply = line
        let code = line.prefix(3)
        if code == "213" {
            replies213.append(String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces))
        } else if code == "350", context.restartReason == nil, context.offset > 0 {
            restAccepted = true
            let facts = remoteFacts(mtime: modificationTime())
            if let reason = resumeProblem(size: facts.size, mtime: facts.mtime) {
                restart = reason
                return false
            }
        }
        return true
    }

    /// The size (`SIZE`) and modification time (`MDTM`, seconds since the epoch) the server
    /// reported, each `nil` when it did not answer.
    func remoteFacts(of transfer: CurlTransfer) -> (size: Int64?, mtime: Int64?) {
        remoteFacts(mtime: Self.modificationTime(of: transfer))
    }

    /// The size from the `213` replies read so far, given the `MDTM` time libcurl parsed (`nil`
    /// when the server answered no `MDTM`, so that every `213` is `SIZE`'s), and that time.
    func remoteFacts(mtime: Int64?) -> (size: Int64?, mtime: Int64?) {
        // With a parsed MDTM the first 213 was its reply and SIZE's is the second.
        let sizeText = mtime != nil && replies213.count < 2 ? nil : replies213.last
        return (sizeText.flatMap { Int64($0) }, mtime)
    }

    /// The `MDTM` time libcurl parsed (`CURLINFO_FILETIME_T`), seconds since the epoch; `nil`
    /// when the server answered no `MDTM`.
    static func modificationTime(of transfer: CurlTransfer) -> Int64? {
        var time: curl_off_t = -1
        _ = ccurl_easy_getinfo_off(transfer.easy, CURLINFO_FILETIME_T, &time)
        return time >= 0 ? Int64(time) : nil
    }

    /// The validator of the remote file: size and `MDTM` time, or the size alone (weak) on a
    /// server without `MDTM`; `nil` without `SIZE`.
    static func validator(size: Int64?, mtime: Int64?) -> Validator? {
        guard let size else { return nil }
        if let mtime { return .sizeAndModificationTime(size: size, mtime: mtime) }
        return .ftpSize(size)
    }

    /// Why the bytes of the remote file from the offset are not a continuation of the bytes on
    /// disk, or `nil` when they are.
    func resumeProblem(size: Int64?, mtime: Int64?) -> RestartReason? {
        if let expected = context.expectedLength, let size, size != expected { return .validatorChanged }
        guard let remembered = context.validator else { return nil }  // asked unconditionally, as HTTP does
        guard let current = Self.validator(size: size, mtime: mtime) else { return .resumeUnsupported }
        return current == remembered ? nil : .validatorChanged
    }

    /// The head before the first body byte, or after an exchange without one. The exchange's
    /// ``CurlTransfer/beginHead()`` acts on it.
    func plan(_ transfer: CurlTransfer) -> ResponsePlan {
        let (size, mtime) = remoteFacts(of: transfer)
        let validator = Self.validator(size: size, mtime: mtime)
        if let reason = context.restartReason {
            return .deliver(TransferHead(disposition: .restarted(reason), expectedLength: size, validator: validator))
        }
        if context.offset > 0 || context.end != nil, let reason = resumeProblem(size: size, mtime: mtime) {
            restart = reason
            return .refuse(DownloadError(.protocolViolation, "the remote file changed", isRetryable: true))
        }
        if let size, context.end != nil, context.offset >= size {
            return .refuse(DownloadError(.rangeNotSatisfiable, "the range from \(context.offset) starts at or past the end of the file (\(size) bytes)",
                                         isRetryable: false))
        }
        if context.offset > 0, context.end == nil, size == context.offset {
            // libcurl found nothing left to send and sent neither REST nor RETR.
            return .deliver(TransferHead(disposition: .complete, expectedLength: size, validator: validator))
        }
        return .deliver(TransferHead(disposition: .resumed(at: context.offset), expectedLength: size, validator: validator))
    }
}
