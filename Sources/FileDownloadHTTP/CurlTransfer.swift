internal import CCurl
import FileDownload
import Foundation
import Synchronization

/// One libcurl easy handle doing one HTTP exchange (one request, its redirects and libcurl's own
/// auth round trips) for an attempt.
///
/// Built and configured on the caller's task, then handed to the ``CurlMulti`` I/O thread, which
/// alone touches it while it runs (its callbacks run there); the caller reads its state again only
/// after ``CurlMulti`` finished it. That hand-over is what makes the `@unchecked Sendable` sound.
final class CurlTransfer: CurlEasyHandle, @unchecked Sendable {
    /// How the exchange ended, as the I/O thread reports it.
    enum Outcome: Sendable {
        case completed(CURLcode)
        case cancelled
    }

    /// What the transport needs to plan the response.
    struct Context: Sendable {
        var offset: Int64
        /// The end (exclusive) of a ranged request, `nil` for the rest of the resource.
        var end: Int64? = nil
        var validator: Validator?
        var expectedLength: Int64?
        var sentRange: Bool
        var restartReason: RestartReason
        var requestURL: String
        /// The URL the download asked for: `requestURL` unless a redirect that left its origin
        /// was re-issued without the secret fields (see ``crossOriginRedirect``).
        var initialURL: String
        var allowsHTTPSToHTTPRedirects: Bool
        var followsRedirects: Bool
        /// Whether the request carries secret header fields meant for its origin only: a redirect
        /// to another origin then ends the exchange (``crossOriginRedirect``), so that the
        /// transport re-issues the request there without them.
        var withholdsSecretsFromOtherOrigins: Bool
        /// Whether `http` and `https` URLs go through different proxies (or one of them through
        /// none): a redirect to the other scheme then ends the exchange (``crossOriginRedirect``),
        /// so that the transport re-issues the request through that scheme's proxy (libcurl
        /// keeps the first URL's proxy for every redirect it follows).
        var reissuesSchemeChanges: Bool = false
    }

    let easy: UnsafeMutableRawPointer
    let writer: TransferWriter
    let context: Context
    var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var continuation: CheckedContinuation<Outcome, Never>?

    /// Set by any thread when the task is cancelled; the I/O thread checks it before adding.
    let cancelRequested = Atomic<Bool>(false)

    // State written by the callbacks on the I/O thread, read by the task after the outcome.
    private(set) var response = ResponseHead()
    private(set) var began = false
    private(set) var discardsBody = false
    /// The error that made a callback abort the exchange.
    private(set) var failure: DownloadError?
    /// Set when the body cannot be used and the next attempt must start without a range.
    private(set) var restartNextAttempt: RestartReason?
    /// Set when the final response was a 401 (`false`) or 407 (`true`).
    private(set) var challengeFromProxy: Bool?
    /// The redirects this exchange met (followed, or ended it).
    private(set) var redirectsSeen = 0
    /// Set when a redirect to another origin ended the exchange because the request carries
    /// secret fields (``Context/withholdsSecretsFromOtherOrigins``) or the other scheme has
    /// another proxy (``Context/reissuesSchemeChanges``): where it pointed.
    private(set) var crossOriginRedirect: URL?
    /// Set for an FTP exchange: it reads the server's replies and plans the head instead of the
    /// HTTP response (``FTPTransport``).
    var ftp: FTPExchange?
    /// What libcurl's debug callback writes to (`HTTPTransport.Configuration.exchangeLog`),
    /// held as long as the handle; `nil` without one.
    var exchangeLogger: ExchangeLogger?
    /// The I/O thread's gatherer of fast body pieces, set when the thread takes the transfer.
    var gatherer: BodyGatherer?
    /// The I/O thread's list of transfers paused for the downloader's overall limit, set when the
    /// thread takes the transfer.
    var pauses: PauseList?

    /// Creates the easy handle; the caller sets its options with ``set(_:_:)`` and friends.
    init(writer: TransferWriter, context: Context) throws {
        guard let easy = curl_easy_init() else {
            throw DownloadError(.transport, "libcurl could not create a transfer handle")
        }
        self.easy = easy
        self.writer = writer
        self.context = context
        let size = Int(ccurl_errorsize())
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)

        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION) { data, size, count, me in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(me!).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
            return transfer.receiveBody(bytes)
        }
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION) { data, size, count, me in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(me!).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
            return transfer.receiveHeader(bytes) ? size * count : 0
        }
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    // MARK: options

    /// The error a refused option throws: libcurl's `code`, naming the option and the URL.
    func refused(_ option: CURLoption, _ code: CURLcode) -> any Error {
        DownloadError.curl(code, detail: "option \(option.rawValue)", url: context.requestURL)
    }

    // MARK: running

    /// Stores the continuation the I/O thread resumes. Called before the handle is handed over.
    func install(_ continuation: CheckedContinuation<Outcome, Never>) {
        self.continuation = continuation
    }

    /// Writes what the gatherer holds of this transfer, then resumes the waiting task exactly
    /// once. I/O thread only (or before hand-over). A failed write becomes ``failure``.
    func finish(_ outcome: Outcome) {
        gatherer?.flush(for: self)
        continuation?.resume(returning: outcome)
        continuation = nil
    }

    /// libcurl's detail message for the last failure, if any.
    var errorDetail: String { String(cString: errorBuffer) }

    /// The `errno` of the last failed system call of the transfer (`CURLINFO_OS_ERRNO`: a failed
    /// connect's `ECONNREFUSED`, `ENETUNREACH`, ...); 0 when there was none.
    var osErrno: Int32 {
        var value = 0
        guard ccurl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &value) == CURLE_OK else { return 0 }
        return Int32(truncatingIfNeeded: value)
    }

    /// Whether the transfer's connection (to the server, or to its proxy) was established:
    /// `CURLINFO_CONNECT_TIME_T` above zero. A timeout before it is a connect timeout.
    var connected: Bool {
        var value: curl_off_t = 0
        guard ccurl_easy_getinfo_off(easy, CURLINFO_CONNECT_TIME_T, &value) == CURLE_OK else { return false }
        return value > 0
    }

    /// The URL libcurl fetched last (after redirects).
    var effectiveURL: String? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard ccurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer else {
            return nil
        }
        return String(cString: pointer)
    }

    // MARK: callbacks (I/O thread)

    private func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let ftp { return ftp.consume(line: bytes, of: self) }
        if began { return true }  // trailers
        response.consume(line: bytes)
        if response.isComplete, context.followsRedirects, response.isFollowableRedirect {
            return checkRedirect()
        }
        return true
    }

    /// Refuses a redirect to a scheme other than http(s), or from https to http unless allowed.
    private func checkRedirect() -> Bool {
        let current = effectiveURL.flatMap { URL(string: $0) }
        guard let location = response.value("location"),
              let target = URL(string: location, relativeTo: current)?.absoluteURL else {
            return true  // libcurl reports what it cannot parse
        }
        let from = current?.scheme?.lowercased() ?? "http"
        let to = target.scheme?.lowercased() ?? ""
        let shown = target.redactingPassword
        if to != "http" && to != "https" {
            failure = DownloadError(.redirectRefused,
                                    "a redirect from \(context.requestURL) to \(shown) was refused: only http and https are followed",
                                    isRetryable: false, statusCode: response.statusCode)
            return false
        }
        if from == "https", to == "http", !context.allowsHTTPSToHTTPRedirects {
            failure = DownloadError(.redirectRefused,
                                    "a redirect from https to http (\(shown)) was refused",
                                    isRetryable: false, statusCode: response.statusCode)
            return false
        }
        redirectsSeen += 1
        if let current, (context.withholdsSecretsFromOtherOrigins && current.origin != target.origin)
            || (context.reissuesSchemeChanges && from != to) {
            crossOriginRedirect = target
            return false
        }
        return true
    }

    /// Body bytes: full 16 KiB pieces (a fast read) go through the thread's ``BodyGatherer``,
    /// other pieces straight into the writer. While the writer's `TransferWriter.pacingDelay` (the
    /// downloader's overall limit) is above zero the piece is not taken: the transfer pauses
    /// (`CURL_WRITEFUNC_PAUSE`, libcurl hands the same piece over again) and the I/O thread
    /// resumes it when the delay is over, serving its other transfers meanwhile.
    ///
    /// - Returns: what the write callback answers: the piece's length, 0 to fail, or the pause.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if failure != nil { return 0 }  // a gathered write of this transfer failed
        if !began, !beginHead() { return 0 }
        if discardsBody { return bytes.count }
        if let pauses {
            let delay = writer.pacingDelay
            if delay > .zero {
                // At most 100 ms at a time: the piece is offered again then, so a raised limit
                // takes effect at once.
                pauses.add(self, until: .now + min(delay, .milliseconds(100)))
                return Int(ccurl_writefunc_pause())
            }
        }
        let taken: Bool
        if let gatherer, bytes.count == gatherer.largestPiece || gatherer.holds(self) {
            taken = gatherer.append(bytes, for: self)
        } else {
            taken = writeBody(bytes)
        }
        return taken ? bytes.count : 0
    }

    /// Writes body bytes into the writer; `false`, with ``failure`` set, when it refused them.
    /// I/O thread only.
    func writeBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do {
            try writer.write(bytes)
            return true
        } catch {
            if failure == nil { failure = DownloadError.wrapping(error) }
            return false
        }
    }

    /// Plans the final response and reports its head to the writer. Called before the first body
    /// byte on the I/O thread, or by the task after the exchange when there was no body.
    ///
    /// - Returns: `false` when the exchange must stop (``failure``, ``restartNextAttempt`` or
    ///   ``challengeFromProxy`` says why).
    func beginHead() -> Bool {
        let plan: ResponsePlan
        if let ftp {
            plan = ftp.plan(self)
        } else {
            let effective = effectiveURL.flatMap { $0 == context.initialURL ? nil : URL(string: $0) }
            plan = ResponsePlan.decide(
                response: response, offset: context.offset, end: context.end, validator: context.validator,
                expectedLength: context.expectedLength, sentRange: context.sentRange, restartReason: context.restartReason,
                effectiveURL: effective)
        }
        switch plan {
        case .deliver(let head):
            do {
                try writer.begin(head)
            } catch {
                failure = DownloadError.wrapping(error)
                return false
            }
            began = true
            discardsBody = head.disposition == .complete
            return true
        case .restartNextAttempt(let reason, let error):
            restartNextAttempt = reason
            failure = error
            return false
        case .refuse(let error):
            failure = error
            return false
        case .challenge(let proxy):
            challengeFromProxy = proxy
            return false
        }
    }
}
