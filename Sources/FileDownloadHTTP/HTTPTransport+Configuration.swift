import Foundation

extension HTTPTransport {
    /// Settings shared by every transfer of one ``HTTPTransport``.
    ///
    /// Every property has a strict default: TLS verified against the system's trust store,
    /// redirects followed only between `http` and `https` and never from `https` to `http`,
    /// at most 3 credentials tried per attempt. Proxies follow the process's environment
    /// (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`, as curl reads them) unless
    /// ``proxy`` says otherwise.
    public struct Configuration: Sendable, Hashable {
        /// How many redirects one attempt follows before it fails with
        /// `DownloadError.Code.tooManyRedirects`. `0` follows none: a 3xx response is then
        /// reported as the final status. Default 10.
        public var maxRedirects: Int
        /// Whether a redirect from `https` to `http` is followed. Default `false`: such a redirect
        /// fails the attempt with `DownloadError.Code.redirectRefused` (not retryable).
        public var allowsHTTPSToHTTPRedirects: Bool
        /// A PEM file of CA certificates to verify servers with, instead of the system's bundle.
        public var caBundlePath: String?
        /// A directory of hashed CA certificates (`c_rehash`, `openssl rehash`) to verify servers
        /// with, beside ``caBundlePath`` (or the system's bundle when that is `nil`).
        public var caDirectoryPath: String?
        /// Insecure: whether TLS transfers skip verifying the server (its certificate chain and its
        /// name), as curl's `-k`. Anyone between the program and the server can then read and change
        /// the bytes; the transfer is still encrypted. Default `false`. With `true` no
        /// `AuthChallenge.Kind.serverTrust(host:port:reason:)` is asked, as nothing is verified.
        /// For testing against a server with a self-signed certificate; to trust a private CA, give
        /// ``caBundlePath`` or ``caDirectoryPath`` instead.
        public var skipsTLSVerification: Bool
        /// A TLS client certificate (PEM) presented to servers that ask for one.
        public var clientCertificatePath: String?
        /// The private key (PEM) of ``clientCertificatePath``.
        public var clientKeyPath: String?
        /// The passphrase of ``clientKeyPath``, if it has one. Never logged.
        public var clientKeyPassphrase: String?
        /// Whether a failed TLS verification is offered to the auth door as
        /// `AuthChallenge.Kind.serverTrust(host:port:reason:)` before it fails the attempt.
        /// Only an explicit `AuthDisposition.trust(remember:)` answer goes on without
        /// verification, and only for that attempt. Default `true`.
        public var asksForServerTrust: Bool
        /// How many credentials one attempt tries after a 401/407 before it fails with
        /// `DownloadError.Code.authenticationFailed`. Default 3.
        public var maxAuthenticationAttempts: Int
        /// The `User-Agent` sent when `TransferOptions.userAgent` is `nil`.
        public var userAgent: String
        /// libcurl's receive buffer per transfer in bytes (16 KiB up to libcurl's `CURL_MAX_READ_SIZE`,
        /// 10 MiB in Debian 12's libcurl): bigger buffers mean fewer, larger reads from the socket on
        /// fast links (writes are gathered up to 512 KiB either way). Default 512 KiB.
        public var receiveBufferSize: Int
        /// How many I/O threads (each with its own libcurl multi handle and connection cache) run
        /// the transfers. A new transfer goes to the thread with the fewest running. Each thread
        /// does its transfers' receiving and writing, so with many files at once more threads use
        /// more cores. Default (`nil` in the initializer): the number of active processors, at
        /// most 4. Clamped to 1...16.
        public var ioThreads: Int
        /// The proxies transfers go through. Default: ``ProxySettings/environment(_:)``, read when
        /// the configuration is made; ``ProxySettings/none`` for direct connections whatever the
        /// environment says. A download's `TransferOptions.proxy` replaces it for that download
        /// (used for every host, without exceptions).
        public var proxy: ProxySettings
        /// A cookie file libcurl reads before each request (Netscape `cookies.txt` format, as
        /// curl's `-b FILE` and wget's `--load-cookies`): its cookies go to the hosts and paths
        /// they match, with the cookies a server sets during the attempt. Never written: the
        /// transport stores no cookie. Default `nil`: no cookies.
        public var cookieFile: String? = nil
        /// Receives the status line and header fields of every request sent and answer received,
        /// one line each (`> ` before a request's, `< ` before an answer's, after the download's
        /// id), as curl's `-v` shows them. Secrets are shown as `[redacted]`: the values of
        /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Amz-Security-Token`
        /// and every sensitive field of the request (`HeaderField.isSensitive`), and the value of
        /// every query parameter of the request target (a presigned URL's signature). Called on
        /// the transport's I/O threads: it must be quick and must not block. Default `nil`.
        public var exchangeLog: ExchangeLog? = nil

        /// Creates a configuration; every parameter has the strict default described on its property.
        public init(
            maxRedirects: Int = 10,
            allowsHTTPSToHTTPRedirects: Bool = false,
            caBundlePath: String? = nil,
            caDirectoryPath: String? = nil,
            skipsTLSVerification: Bool = false,
            clientCertificatePath: String? = nil,
            clientKeyPath: String? = nil,
            clientKeyPassphrase: String? = nil,
            asksForServerTrust: Bool = true,
            maxAuthenticationAttempts: Int = 3,
            userAgent: String = "swift-file-download/1.0",
            receiveBufferSize: Int = 512 * 1024,
            ioThreads: Int? = nil,
            proxy: ProxySettings = .environment()
        ) {
            self.proxy = proxy
            self.maxRedirects = maxRedirects
            self.allowsHTTPSToHTTPRedirects = allowsHTTPSToHTTPRedirects
            self.caBundlePath = caBundlePath
            self.caDirectoryPath = caDirectoryPath
            self.skipsTLSVerification = skipsTLSVerification
            self.clientCertificatePath = clientCertificatePath
            self.clientKeyPath = clientKeyPath
            self.clientKeyPassphrase = clientKeyPassphrase
            self.asksForServerTrust = asksForServerTrust
            self.maxAuthenticationAttempts = maxAuthenticationAttempts
            self.userAgent = userAgent
            self.receiveBufferSize = receiveBufferSize
            self.ioThreads = min(max(ioThreads ?? min(4, ProcessInfo.processInfo.activeProcessorCount), 1), 16)
        }
    }
}
