internal import CCurl
public import FileDownload
import Foundation
import Synchronization

/// Downloads `http` and `https` URLs with libcurl.
///
/// ```swift
/// var transports = TransportRegistry()
/// transports.register(try HTTPTransport(), for: "http", "https")
/// ```
///
/// One transport owns a few libcurl multi handles, each run by one I/O thread
/// (``Configuration/ioThreads``); a transfer runs on the thread that had the fewest transfers when
/// it began, and connections are reused between transfers on the same thread. Body bytes go from
/// libcurl's write callback straight into the `TransferWriter` on that thread. Swift's cooperative
/// pool is never blocked: `transfer` awaits the I/O thread.
///
/// ## An attempt, in order
/// 1. The request carries `Accept-Encoding: identity` (offsets are bytes of the file), the
///    per-download header fields, user agent, proxy, rate limit and timeouts of
///    `TransferOptions`. Without a proxy there, the proxy of ``Configuration/proxy`` for the
///    URL's scheme is used (by default the environment's, as curl reads it), unless its
///    ``ProxySettings/noProxy`` names the host; `https` goes through a `CONNECT` tunnel. The
///    connect timeout is `TransferOptions.connectTimeout`; an attempt that receives nothing for
///    `TransferOptions.requestTimeout` fails with `DownloadError.Code.timedOut`. While the writer's
///    `TransferWriter.pacingDelay` (the downloader's overall limit) is above zero, the transfer is
///    paused on its I/O thread (libcurl keeps the piece and hands it over again) and resumed when
///    the delay is over; the thread serves its other transfers meanwhile.
/// 2. When the offset is above zero it asks for `Range: bytes=OFFSET-` (when the offset is the
///    known length, `TransferRequest.expectedLength`: `Range: bytes=OFFSET-1-`, the last byte on
///    disk), with `If-Range` carrying
///    the remembered validator when it is strong (an ETag without `W/`, or a Last-Modified date).
///    A weak ETag is never sent: the attempt asks for the whole file instead and reports
///    `RestartReason.resumeUnsupported`. Without any validator the range is asked unconditionally.
/// 3. Redirects are followed up to ``Configuration/maxRedirects``, only to `http` and `https`,
///    and never from `https` to `http` unless ``Configuration/allowsHTTPSToHTTPRedirects``.
///    A redirect to the other scheme goes through that scheme's proxy (a new request) when the
///    two schemes' proxies differ.
/// 4. A 401/407 asks `TransferRequest.authenticate(_:)` (Basic, Digest, Bearer) and tries the
///    credential it gets, at most ``Configuration/maxAuthenticationAttempts`` times. Credentials
///    in the URL are sent only when the answer is `AuthDisposition.performDefaultHandling`.
///    A failed TLS verification asks for `AuthChallenge.Kind.serverTrust(host:port:reason:)`.
/// 5. Before the first body byte of the final response, `TransferWriter.begin(_:)` gets the head:
///    206 with a `Content-Range` starting at the offset → `ResumeDisposition.resumed(at:)`;
///    206 of the last byte on disk (`OFFSET-1`) of a resource of OFFSET bytes →
///    `ResumeDisposition.complete` (that byte is not written);
///    206 starting at zero → restarted (`RestartReason.rangeMismatch`), the body is used;
///    200 to a range → restarted, `RestartReason.validatorChanged` when the validator or the
///    content coding differs, else `RestartReason.rangeIgnored`; 416 with `Content-Range: */N`
///    where N is the offset (and the known length) →
///    `ResumeDisposition.complete`, reported with status 206. Any other status (404, 500, ...)
///    is reported as it is, so the downloader's status check rejects it before a byte of the
///    error page is written.
///    A body in a content coding (`Content-Encoding: gzip`, which was not asked for) is kept as
///    sent, as curl and wget keep it: libcurl is never asked to decode. Its coding is part of the
///    head's validator (`Validator.contentEncoding`). Before any of that, a body in a transfer
///    coding other than chunked is refused: `begin` is never called, the staging file keeps the
///    bytes it had, and the attempt fails with a `DownloadError.Code.protocolViolation` that is
///    not retryable (a 4xx/5xx keeps the error of its status).
/// 6. A 206 that starts elsewhere, a 416 of another size, or a range of another resource cannot be
///    used: the attempt fails with a retryable `DownloadError.Code.protocolViolation` and the
///    next attempt of the same download asks for the whole file. Another resource is one whose
///    validator of the remembered kind differs or (on a 206) is missing, whose content coding
///    differs from the coding of the bytes on disk (identity without a remembered validator), or
///    whose total differs from `TransferRequest.expectedLength`. A 416 whose `Content-Range: */N` has N equal to the
///    offset and to the known length is complete even without a validator (nginx sends none),
///    because the request's `If-Range` already asked the server to compare it.
///
/// 7. A ranged request (`TransferRequest.end`) asks for `Range: bytes=OFFSET-(END-1)` at every
///    offset, with `If-Range` as in step 2 (a weak ETag: the whole file, restarted with
///    `RestartReason.resumeUnsupported`). A 206 of exactly that range (cut at the resource's end)
///    → `ResumeDisposition.resumed(at:)`; a 200 → restarted (`validatorChanged` or
///    `rangeIgnored`), the whole body follows; a 416 → `DownloadError.Code.rangeNotSatisfiable`
///    (not retryable), nothing written; another range → a retryable `protocolViolation`. A ranged
///    request neither uses nor leaves behind the remembered restart of step 6.
///
/// Errors map to `DownloadError` codes: connection failures, breaks and timeouts are retryable;
/// TLS failures, refused redirects, too many redirects and rejected credentials are not.
///
/// Cancelling the task removes the transfer from the I/O thread within one wake-up (well under
/// tens of milliseconds); nothing touches the writer after `transfer` returns.
public final class HTTPTransport: Transport {
    /// The settings of this transport.
    public let configuration: Configuration
    private let multis: [CurlMulti]
    /// Downloads whose next attempt must ask for the whole file, and why.
    private let pendingRestarts = Mutex<[String: RestartReason]>([:])

    /// Creates a transport and starts its I/O thread.
    ///
    /// - Throws: `DownloadError` with code `DownloadError.Code.transport` when libcurl cannot be
    ///   initialised.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.multis = try (0..<configuration.ioThreads).map { _ in try CurlMulti() }
    }

    deinit {
        for multi in multis { multi.requestStop() }
    }

    /// Resume, validators, authentication, rate limit, custom headers, expected length and ranges.
    public var capabilities: TransportCapabilities {
        [.resume, .validators, .authentication, .rateLimit, .customHeaders, .expectedLength, .ranges]
    }

    /// Cancels running transfers and stops the I/O thread. The transport must not be used after.
    public func shutdown() async {
        for multi in multis { await multi.shutdown() }
    }

    /// Performs one attempt; see the type's documentation for the order of events.
    public func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        try await transfer(request, into: writer, signing: nil)
    }

    /// Performs one attempt, its requests signed with `signing` when given (``S3Transport``).
    func transfer(_ request: TransferRequest, into writer: TransferWriter, signing: AWSSigning?) async throws {
        var (context, host, restartReason) = try plan(request)

        var current = request  // another URL, without the secret fields, after a cross-origin redirect
        var serverAuth: HTTPAuthentication?
        var proxyAuth: HTTPAuthentication?
        var credentialsTried = (server: 0, proxy: 0)
        var trustsServer = false
        var redirectsLeft = configuration.maxRedirects
        while true {
            try Task.checkCancellation()
            let transfer = try makeTransfer(current, writer: writer, context: context, redirectsLeft: redirectsLeft,
                                            serverAuth: serverAuth, proxyAuth: proxyAuth, trustsServer: trustsServer,
                                            signing: signing)
            let outcome = await leastBusy().perform(transfer)
            guard case .completed(let code) = outcome else {
                throw DownloadError(.cancelled, "the transfer of \(request.url.redactingPassword) was cancelled")
            }
            if let target = transfer.crossOriginRedirect {
                // The request carries secret fields and the redirect leaves their origin, or the
                // redirect changes the scheme and so the proxy: the same request goes there (through
                // the target scheme's proxy), without the secret fields and without credentials the
                // origin asked for (a change of scheme is a change of origin too).
                redirectsLeft -= transfer.redirectsSeen
                guard redirectsLeft >= 0 else {
                    throw DownloadError(.tooManyRedirects, "more than \(configuration.maxRedirects) redirects from \(request.url.redactingPassword)")
                }
                current.url = target
                current.options.headers.removeAll(where: Self.isForOriginOnly)
                serverAuth = nil
                credentialsTried.server = 0
                (context, host, restartReason) = try plan(current, initialURL: context.initialURL)
                continue
            }
            if code == CURLE_OK, !transfer.began, transfer.failure == nil, transfer.challengeFromProxy == nil {
                _ = transfer.beginHead()
            }
            if let reason = transfer.restartNextAttempt, request.end == nil {
                pendingRestarts.withLock { $0[request.downloadID] = reason }
            } else if transfer.began, restartReason != nil {
                pendingRestarts.withLock { $0[request.downloadID] = nil }
            }
            if let failure = transfer.failure { throw failure }
            if let proxy = transfer.challengeFromProxy {
                let tried = proxy ? credentialsTried.proxy : credentialsTried.server
                let auth = try await answerChallenge(transfer.response, proxy: proxy, tried: tried, request: request)
                if proxy {
                    proxyAuth = auth
                    credentialsTried.proxy += 1
                } else {
                    serverAuth = auth
                    credentialsTried.server += 1
                }
                continue
            }
            if code == CURLE_PEER_FAILED_VERIFICATION, configuration.asksForServerTrust, !trustsServer {
                let challenge = AuthChallenge(
                    kind: .serverTrust(host: host, port: request.url.port ?? 443, reason: transfer.errorDetail),
                    url: request.url.removingCredentials)
                if case .trust = await request.authenticate(challenge) {
                    trustsServer = true
                    continue
                }
            }
            guard code == CURLE_OK else {
                throw DownloadError.curl(code, detail: transfer.errorDetail, url: request.url.redactingPassword,
                                         osErrno: transfer.osErrno, connected: transfer.connected)
            }
            return
        }
    }

    // MARK: helpers

    /// The I/O thread with the fewest transfers (the first of equals).
    private func leastBusy() -> CurlMulti {
        multis.min { $0.load < $1.load } ?? multis[0]
    }

    /// Checks the URL and plans the exchange. Synchronous, so its temporaries stay off the task's
    /// own allocator (a thousand waiting transfers each keep their async frame).
    ///
    /// - Parameter initialURL: the URL the download asked for, when `request` follows a redirect.
    private func plan(_ request: TransferRequest, initialURL: String? = nil) throws -> (CurlTransfer.Context, String, RestartReason?) {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = request.url.host, !host.isEmpty,
              var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else {
            throw DownloadError(.invalidURL, "\(request.url.redactingPassword) is not an http or https URL with a host")
        }
        components.user = nil
        components.password = nil
        guard let plainURL = components.string else {
            throw DownloadError(.invalidURL, "\(request.url.redactingPassword) cannot be sent")
        }
        // Kept until a response is actually used, so a failure before any response (refused
        // connection) does not make the next attempt ask for the unusable range again.
        // A ranged request always asks for its range: the restarts remembered per download belong
        // to its open-ended attempts.
        let ranged = request.end != nil
        let restartReason = ranged ? nil : pendingRestarts.withLock { $0[request.downloadID] }
        let weakValidator = request.validator.map { !$0.isStrong } ?? false
        let context = CurlTransfer.Context(
            offset: request.offset,
            end: request.end,
            validator: request.validator,
            expectedLength: request.offset > 0 || ranged ? request.expectedLength : nil,
            sentRange: (request.offset > 0 || ranged) && restartReason == nil && !weakValidator,
            restartReason: restartReason ?? .resumeUnsupported,
            requestURL: plainURL,
            initialURL: initialURL ?? plainURL,
            allowsHTTPSToHTTPRedirects: configuration.allowsHTTPSToHTTPRedirects,
            followsRedirects: configuration.maxRedirects > 0,
            withholdsSecretsFromOtherOrigins: request.options.headers.contains(where: Self.isForOriginOnly),
            reissuesSchemeChanges: request.options.proxy == nil && configuration.proxy.differsBetweenSchemes
        )
        return (context, host, restartReason)
    }

    /// Whether `field` is a secret for the request's origin only (a sensitive field other than
    /// `Proxy-Authorization`, which goes to the proxy): never sent to another origin.
    static func isForOriginOnly(_ field: HeaderField) -> Bool {
        field.isSensitive && field.name.lowercased() != "proxy-authorization"
    }

    /// Builds the easy handle of one exchange.
    private func makeTransfer(
        _ request: TransferRequest,
        writer: TransferWriter,
        context: CurlTransfer.Context,
        redirectsLeft: Int,
        serverAuth: HTTPAuthentication?,
        proxyAuth: HTTPAuthentication?,
        trustsServer: Bool,
        signing: AWSSigning? = nil
    ) throws -> CurlTransfer {
        let t = try CurlTransfer(writer: writer, context: context)
        let options = request.options
        try t.set(CURLOPT_URL, context.requestURL)
        try t.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try t.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        t.set(CURLOPT_FOLLOWLOCATION, context.followsRedirects ? 1 : 0)
        t.set(CURLOPT_MAXREDIRS, redirectsLeft)
        try t.setCommonOptions(options, receiveBufferSize: configuration.receiveBufferSize,
                               verifiesTLS: !trustsServer && !configuration.skipsTLSVerification,
                               caBundlePath: configuration.caBundlePath, caDirectoryPath: configuration.caDirectoryPath)
        if let path = configuration.cookieFile { try t.set(CURLOPT_COOKIEFILE, path) }
        if let path = configuration.clientCertificatePath { try t.set(CURLOPT_SSLCERT, path) }
        if let path = configuration.clientKeyPath { try t.set(CURLOPT_SSLKEY, path) }
        if let secret = configuration.clientKeyPassphrase { try t.set(CURLOPT_KEYPASSWD, secret) }
        try t.set(CURLOPT_USERAGENT, options.userAgent ?? configuration.userAgent)
        // libcurl never reads the environment itself: the proxy and its exceptions are always set
        // (an empty string means none), from the download's options or the configuration.
        let proxy = try chosenProxy(options.proxy, forScheme: request.url.scheme ?? "")
        try t.set(CURLOPT_PROXY, proxy?.absoluteString ?? "")
        try t.set(CURLOPT_NOPROXY, options.proxy == nil ? configuration.proxy.noProxy.joined(separator: ",") : "")
        try serverAuth?.apply(to: t, proxy: false)
        try proxyAuth?.apply(to: t, proxy: true)
        try signing?.apply(to: t)

        let owned: Set<String> = ["range", "if-range", "accept-encoding"]
        var lines = ["Accept-Encoding: identity"]
        if context.sentRange {
            // At the known length, the last byte on disk: a range the server can satisfy, whose
            // 206 tells the length (a 416 need not).
            let first = ResponsePlan.probesLastByte(offset: context.offset, end: context.end,
                                                    expectedLength: context.expectedLength,
                                                    sentRange: context.sentRange) ? context.offset - 1 : context.offset
            lines.append("Range: bytes=\(first)-\(context.end.map { String($0 - 1) } ?? "")")
            if let validator = context.validator, validator.isStrong,
               validator.kind == .entityTag || validator.kind == .lastModified {
                lines.append("If-Range: \(validator.value)")
            }
        }
        for field in options.headers where !owned.contains(field.name.lowercased()) {
            lines.append("\(field.name): \(field.value)")
        }
        // A field (or a remembered validator) from a caller, resume data or a store is not trusted
        // to be one line: a CR, LF or NUL would end the field and start another the caller never
        // wrote. Nothing is sent then; the message names the field, never its value.
        if let bad = lines.first(where: { $0.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }) {
            throw DownloadError(.transport, "the request header field \(bad.prefix { $0 != ":" }) holds a line break or NUL; the request was not sent")
        }
        t.setHeaders(lines)
        if let log = configuration.exchangeLog {
            t.logExchanges(to: log, id: request.downloadID,
                           secretNames: Set(options.headers.filter(\.isSensitive).map { $0.name.lowercased() }))
        }
        return t
    }

    /// The proxy of a request: the download's own, else the configuration's for `scheme`.
    ///
    /// - Throws: `DownloadError.Code.invalidURL` (not retryable) when it cannot be used: an
    ///   environment variable that did not parse, or a scheme libcurl does not speak as a proxy.
    ///   The message shows the proxy without its credentials.
    private func chosenProxy(_ own: URL?, forScheme scheme: String) throws -> URL? {
        if own == nil, let problem = configuration.proxy.problem(forScheme: scheme) {
            throw DownloadError(.invalidURL, problem, isRetryable: false)
        }
        guard let proxy = own ?? configuration.proxy.proxy(forScheme: scheme) else { return nil }
        let proxyScheme = proxy.scheme?.lowercased() ?? ""
        guard ProxySettings.supportedSchemes.contains(proxyScheme), proxy.host.map({ !$0.isEmpty }) ?? false else {
            throw DownloadError(.invalidURL, "the proxy \(ProxySettings.redactingUserInformation(in: proxy.absoluteString)) "
                                + "is not a proxy URL: its scheme must be one of "
                                + "\(ProxySettings.supportedSchemes.sorted().joined(separator: ", ")), with a host",
                                isRetryable: false)
        }
        return proxy
    }

    /// Asks the auth door about a 401/407 and returns the credential to try next.
    private func answerChallenge(
        _ response: ResponseHead, proxy: Bool, tried: Int, request: TransferRequest
    ) async throws -> HTTPAuthentication {
        let status = proxy ? 407 : 401
        let who = proxy ? "the proxy" : "the server"
        let url = request.url.removingCredentials
        func refused(_ why: String) -> DownloadError {
            DownloadError(.authenticationFailed, "\(who) for \(url.redactingPassword) asked for credentials (\(status)): \(why)",
                          isRetryable: false, statusCode: status)
        }
        guard tried < configuration.maxAuthenticationAttempts else {
            throw refused("\(tried) credentials were refused")
        }
        let (scheme, realm) = response.challenge(proxy: proxy) ?? ("Basic", nil)
        let kind: AuthChallenge.Kind = proxy ? .httpProxy(scheme: scheme, realm: realm)
                                             : .httpServer(scheme: scheme, realm: realm)
        let disposition = await request.authenticate(AuthChallenge(kind: kind, url: url, previousFailureCount: tried))
        try Task.checkCancellation()
        switch disposition {
        case .useCredential(let credential):
            guard let auth = HTTPAuthentication(credential, scheme: scheme) else {
                throw refused("a \(credential) cannot answer an HTTP challenge")
            }
            return auth
        case .performDefaultHandling:
            if !proxy, tried == 0, let user = request.url.user(percentEncoded: false) {
                let password = request.url.password(percentEncoded: false) ?? ""
                if let auth = HTTPAuthentication(.password(user: user, password: password), scheme: scheme) {
                    return auth
                }
            }
            throw refused(tried == 0 ? "no credentials were given" : "the credentials were refused")
        case .reject, .trust:
            throw refused("answering the challenge was declined")
        }
    }
}
