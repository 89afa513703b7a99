internal import CCurl
public import FileDownload
import Foundation

/// Downloads `ftp` and `ftps` URLs with libcurl, on the same I/O threads, body path and pacing as
/// `HTTPTransport`.
///
/// ```swift
/// var transports = TransportRegistry()
/// transports.register(try FTPTransport(), for: "ftp", "ftps")
/// ```
///
/// ## An attempt, in order
/// 0. FTP does not go through a proxy, and never around one silently: when a proxy applies to the
///    URL (`TransferOptions.proxy`, or ``Configuration/proxyVariables`` read as curl reads them,
///    `no_proxy` included), the attempt fails before connecting with
///    `DownloadError.Code.transport`, not retryable, naming the variable and how to connect
///    directly.
/// 1. The login: the URL's `user:password@` when it has both; otherwise the auth door is asked
///    once with `AuthChallenge.Kind.password(user:)`, naming the URL's user or `anonymous`
///    (`fdl` answers from `--user` or the netrc file). `AuthDisposition.performDefaultHandling`
///    logs in as the URL's user with an empty password, or anonymously when the URL names none.
///    A refused login fails with `DownloadError.Code.authenticationFailed`, not retryable, and a
///    message naming the user and the server's reply.
/// 2. `ftps://` speaks TLS from the first byte (implicit FTPS); `ftp://` switches with `AUTH TLS`
///    when ``Configuration/requiresTLS`` (explicit FTPS; a server that refuses fails with
///    `DownloadError.Code.tlsFailure`). TLS is verified as for HTTPS: the certificate chain against
///    ``Configuration/caBundlePath`` (or the system's bundle) and the host name.
/// 3. libcurl asks `MDTM` and `SIZE`, then, at an offset above zero, `REST OFFSET`. When the server
///    accepts `REST`, and before `RETR` is sent, the remote file's validator (size and `MDTM` time,
///    or the size alone on a server without `MDTM`: `Validator.Kind.ftpSize`) is compared with the
///    remembered one and the size with `TransferRequest.expectedLength`. A difference stops the
///    exchange, and the attempt starts again from zero: the head says
///    `ResumeDisposition.restarted(_:)` with `RestartReason.validatorChanged`
///    (`RestartReason.resumeUnsupported` when the server answers no `SIZE`). A file shorter than
///    the offset restarts the same way. Bytes of a changed file are never appended to old ones.
///    Without a remembered validator in the request, `REST` is sent unchecked (as HTTP sends a
///    range without `If-Range`). A `Downloader` asks for an offset above zero only under a strong
///    validator, so through it a server without `MDTM` (only `Validator.Kind.ftpSize`, weak)
///    never resumes: an interrupted download starts again from zero.
/// 4. The head: `ResumeDisposition.resumed(at:)` with the size as `TransferHead.expectedLength`
///    and the validator; `ResumeDisposition.complete` when the offset is the file's size and it
///    still matches. `TransferHead.statusCode` is `nil`.
/// 5. A ranged request (`TransferRequest.end`) reads `offset ..< end` (`REST`, then the data
///    connection is closed at the end); the validator is checked at every offset, a range at or
///    past the end fails with `DownloadError.Code.rangeNotSatisfiable`.
///
/// A missing file fails with `DownloadError.Code.notFound`, a refused one with
/// `DownloadError.Code.permissionDenied` (neither retryable); broken connections and timeouts are
/// retryable, as for HTTP; a server that does not answer a command on the control connection
/// within the request timeout (`TransferOptions.requestTimeout`) fails with
/// `DownloadError.Code.timedOut`. In passive mode the data connection goes to the control
/// connection's address, not to the one in the `PASV` reply. Cancelling the task removes the
/// transfer from its I/O thread within one wake-up.
public final class FTPTransport: Transport {
    /// The settings of this transport.
    public let configuration: Configuration
    private let multis: [CurlMulti]

    /// Creates a transport and starts its I/O threads.
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

    /// Resume, validators, authentication, rate limit, expected length and ranges.
    public var capabilities: TransportCapabilities {
        [.resume, .validators, .authentication, .rateLimit, .expectedLength, .ranges]
    }

    /// Cancels running transfers and stops the I/O threads. The transport must not be used after.
    public func shutdown() async {
        for multi in multis { await multi.shutdown() }
    }

    /// Performs one attempt; see the type's documentation for the order of events.
    public func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        let plainURL = try Self.plainURL(of: request.url)
        if let problem = Self.proxyProblem(for: request.url, own: request.options.proxy, variables: configuration.proxyVariables) {
            throw DownloadError(.transport, problem, isRetryable: false)
        }
        let login = try await login(for: request)
        var restart: RestartReason?
        // libcurl takes a 550 to SIZE for a missing file, but servers refuse SIZE for files RETR
        // serves (vsftpd's cmds_denied); then the exchange is asked again without SIZE, and the
        // reply to RETR says whether the file is there.
        var skipsSize = false
        while true {
            try Task.checkCancellation()
            let exchange = FTPExchange(FTPExchange.Context(
                offset: restart == nil ? request.offset : 0,
                end: restart == nil ? request.end : nil,
                validator: request.validator,
                expectedLength: request.expectedLength,
                restartReason: restart))
            let transfer = try makeTransfer(request, url: plainURL, login: login, exchange: exchange, writer: writer)
            if skipsSize { transfer.set(CURLOPT_IGNORE_CONTENT_LENGTH, 1) }
            let outcome = await multis.min { $0.load < $1.load }!.perform(transfer)
            guard case .completed(let code) = outcome else {
                throw DownloadError(.cancelled, "the transfer of \(request.url.redactingPassword) was cancelled")
            }
            if code == CURLE_OK, !transfer.began, transfer.failure == nil {
                _ = transfer.beginHead()
            }
            if restart == nil, !transfer.began {
                if let reason = exchange.restart {
                    restart = reason
                    continue
                }
                if code == CURLE_BAD_DOWNLOAD_RESUME {
                    // The file is shorter than the offset.
                    if request.end != nil {
                        throw DownloadError(.rangeNotSatisfiable, "the range from \(request.offset) of \(request.url.redactingPassword) starts past the end of the file",
                                            isRetryable: false)
                    }
                    restart = .validatorChanged
                    continue
                }
            }
            if code == CURLE_REMOTE_FILE_NOT_FOUND, !skipsSize, !transfer.began, transfer.failure == nil {
                skipsSize = true
                continue
            }
            if let failure = transfer.failure { throw failure }
            if code == CURLE_LOGIN_DENIED {
                let who = login.map { "the login of \($0.user)" } ?? "the anonymous login"
                throw DownloadError(.authenticationFailed,
                                    "the FTP server of \(request.url.removingCredentials.redactingPassword) refused \(who): \(exchange.lastReply)",
                                    isRetryable: false)
            }
            guard code == CURLE_OK else {
                throw DownloadError.curl(code, detail: transfer.errorDetail, url: request.url.redactingPassword,
                                         osErrno: transfer.osErrno, connected: transfer.connected)
            }
            return
        }
    }

    // MARK: helpers

    /// The URL without user information, checked to name a file on an FTP server.
    private static func plainURL(of url: URL) throws -> String {
        guard let scheme = url.scheme?.lowercased(), scheme == "ftp" || scheme == "ftps",
              let host = url.host, !host.isEmpty,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw DownloadError(.invalidURL, "\(url.redactingPassword) is not an ftp or ftps URL with a host", isRetryable: false)
        }
        guard !components.path.isEmpty, !components.path.hasSuffix("/") else {
            throw DownloadError(.invalidURL, "\(url.redactingPassword) names a directory, not a file", isRetryable: false)
        }
        components.user = nil
        components.password = nil
        guard let plain = components.string else {
            throw DownloadError(.invalidURL, "\(url.redactingPassword) cannot be sent", isRetryable: false)
        }
        return plain
    }

    /// The user and password to log in with, `nil` for an anonymous login.
    private func login(for request: TransferRequest) async throws -> (user: String, password: String)? {
        let user = request.url.user(percentEncoded: false).flatMap { $0.isEmpty ? nil : $0 }
        if let user, let password = request.url.password(percentEncoded: false) { return (user, password) }
        let challenge = AuthChallenge(kind: .password(user: user ?? "anonymous"), url: request.url.removingCredentials)
        let answer = await request.authenticate(challenge)
        try Task.checkCancellation()
        switch answer {
        case .useCredential(.password(let user, let password)):
            return (user, password)
        case .useCredential(let other):
            throw DownloadError(.authenticationFailed, "a \(other) cannot log in to an FTP server", isRetryable: false)
        case .performDefaultHandling:
            return user.map { ($0, "") }
        case .reject, .trust:
            throw DownloadError(.authenticationFailed,
                                "the login to \(request.url.removingCredentials.redactingPassword) was declined", isRetryable: false)
        }
    }

    /// Builds the easy handle of one exchange.
    private func makeTransfer(
        _ request: TransferRequest, url: String, login: (user: String, password: String)?,
        exchange: FTPExchange, writer: TransferWriter
    ) throws -> CurlTransfer {
        let context = exchange.context
        let t = try CurlTransfer(writer: writer, context: CurlTransfer.Context(
            offset: context.offset, end: context.end, validator: context.validator,
            expectedLength: context.expectedLength, sentRange: false, restartReason: .resumeUnsupported,
            requestURL: url, initialURL: url, allowsHTTPSToHTTPRedirects: false, followsRedirects: false,
            withholdsSecretsFromOtherOrigins: false))
        t.ftp = exchange
        let options = request.options
        try t.set(CURLOPT_URL, url)
        try t.set(CURLOPT_PROTOCOLS_STR, "ftp,ftps")
        t.set(CURLOPT_FILETIME, 1)
        try t.setCommonOptions(options, receiveBufferSize: configuration.receiveBufferSize,
                               verifiesTLS: !configuration.skipsTLSVerification,
                               caBundlePath: configuration.caBundlePath, caDirectoryPath: configuration.caDirectoryPath)
        // A control connection that goes silent (no reply to a command) is bounded by the request
        // timeout too, not libcurl's 120 s; libcurl 7.88 has no _MS form of this option.
        t.set(CURLOPT_SERVER_RESPONSE_TIMEOUT, options.requestTimeout.curlSeconds)
        // The data connection goes to the control connection's address, never to the one in the
        // PASV reply (which can be a private address, or another host's).
        t.set(CURLOPT_FTP_SKIP_PASV_IP, 1)
        if configuration.requiresTLS { t.set(CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)) }
        t.set(CURLOPT_FTPSSLAUTH, Int(CURLFTPAUTH_TLS.rawValue))  // AUTH TLS first, not AUTH SSL
        if configuration.usesActiveMode { try t.set(CURLOPT_FTPPORT, configuration.activeModeAddress) }
        try t.set(CURLOPT_PROXY, "")  // checked in transfer(_:into:): no proxy applies
        if let login {
            try t.set(CURLOPT_USERNAME, login.user)
            try t.set(CURLOPT_PASSWORD, login.password)
        }
        if let end = context.end {
            try t.set(CURLOPT_RANGE, "\(context.offset)-\(end - 1)")
        } else if context.offset > 0 {
            t.set(CURLOPT_RESUME_FROM_LARGE, offset: context.offset)
        }
        return t
    }
}
