internal import CCurl
import FileDownload
package import Foundation

/// POSTs a body to an `http://` or `https://` URL through libcurl and returns the answer's status:
/// the agent's webhook calls.
///
/// Each call is one exchange on a new connection: no redirect is followed (a 3xx answer is
/// returned like any other status), TLS is verified as for HTTPS downloads (the server's chain
/// against the system's CAs, or ``Configuration/caBundlePath`` and
/// ``Configuration/caDirectoryPath``, and its name; there is no way to skip it), proxies are taken
/// from the environment as curl reads them (`https_proxy`, `http_proxy`, `all_proxy`,
/// `no_proxy`), and libcurl uses no signals. Every wait is bounded: connecting by
/// ``Configuration/connectTimeout``, the whole call (connect, TLS, send, the whole answer) by
/// ``Configuration/timeout``. The answer's body is read and dropped.
package struct WebhookPoster: Sendable {
    /// The bounds and the trust of every call.
    package struct Configuration: Sendable {
        /// A PEM file of CA certificates to verify servers with, instead of the system's bundle.
        package var caBundlePath: String?
        /// A directory of hashed CA certificates to verify servers with, beside ``caBundlePath``.
        package var caDirectoryPath: String?
        /// The bound of connecting (within ``timeout``); default 5 s.
        package var connectTimeout: Duration
        /// The bound of the whole call; default 30 s.
        package var timeout: Duration
        /// The `User-Agent` sent.
        package var userAgent: String

        package init(caBundlePath: String? = nil, caDirectoryPath: String? = nil, connectTimeout: Duration = .seconds(5),
                     timeout: Duration = .seconds(30), userAgent: String = "fdl-agent") {
            self.caBundlePath = caBundlePath
            self.caDirectoryPath = caDirectoryPath
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.userAgent = userAgent
        }
    }

    /// Why a call got no answer, in words (the URL's user information is never shown).
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    package var configuration: Configuration

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// POSTs `body` to `url` with `headers` (after `User-Agent`; a `Content-Type` among them
    /// replaces libcurl's form type) and returns the answer's status, whatever it is.
    ///
    /// - Throws: ``Failure`` when the URL is not `http://` or `https://` with a host, a header
    ///   holds a line break, or no whole answer came: the connection failed or broke, the server's
    ///   certificate was not verified, a bound passed (the message shows the URL without its
    ///   password and its query's values). `CancellationError` when the task was
    ///   cancelled (the exchange is ended within about a second).
    package func post(to url: URL, body: Data, headers: [(name: String, value: String)]) async throws -> Int {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw Failure(description: "the webhook URL is not an http:// or https:// URL with a host")
        }
        let lines = headers.map { "\($0.name): \($0.value)" } + ["Expect:"]
        guard !lines.contains(where: { $0.contains("\r") || $0.contains("\n") || $0.contains("\0") }) else {
            throw Failure(description: "a header field of the webhook holds a line break or a NUL")
        }
        // A webhook URL may carry its secret in the query (?token=): shown by names only.
        let shown = QueryRedaction.redactingValues(url.redactingPassword)
        let post = try CurlPost()
        try post.set(CURLOPT_URL, url.absoluteString)
        try post.set(CURLOPT_PROTOCOLS_STR, "http,https")
        post.set(CURLOPT_FOLLOWLOCATION, 0)
        post.set(CURLOPT_NOSIGNAL, 1)
        post.set(CURLOPT_FORBID_REUSE, 1)
        post.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, min(configuration.connectTimeout, configuration.timeout).wholeMilliseconds))
        post.set(CURLOPT_TIMEOUT_MS, max(1, configuration.timeout.wholeMilliseconds))
        post.set(CURLOPT_SSL_VERIFYPEER, 1)
        post.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let path = configuration.caBundlePath { try post.set(CURLOPT_CAINFO, path) }
        if let path = configuration.caDirectoryPath { try post.set(CURLOPT_CAPATH, path) }
        try post.set(CURLOPT_USERAGENT, configuration.userAgent)
        post.set(CURLOPT_POST, 1)
        post.setBody(body)
        post.setHeaders(lines)
        let (code, status) = await post.perform()
        if post.cancelled.load(ordering: .relaxed) { throw CancellationError() }
        guard code == CURLE_OK else {
            let what = code == CURLE_OPERATION_TIMEDOUT ? "no whole answer within the bounds (connect \(configuration.connectTimeout), all \(configuration.timeout))" : "no answer"
            throw Failure(description: "\(what) from \(shown): \(post.describe(code))")
        }
        return status
    }
}
