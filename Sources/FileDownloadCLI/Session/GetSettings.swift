public import FileDownload
public import Foundation

/// What `fdl get` was asked to do, validated: independent of the argument parser so that the
/// session can be driven from tests.
public struct GetSettings: Sendable {
    public var urls: [URL]
    /// Where finished files go; the state lives in `outputDirectory/.fdl`.
    public var outputDirectory: URL
    /// Downloads at once.
    public var concurrency: Int
    /// Connections open at once to one origin over all downloads
    /// (`DownloaderConfiguration.maxConnectionsPerHost`).
    public var maxConnectionsPerHost = 8
    /// Expected SHA-256 per URL, by position; `nil` entries (or a shorter array) check nothing.
    public var sha256: [String?]
    /// Automatic retries of transient failures per download.
    public var retries: Int
    /// Fail an attempt when no byte arrives for this long.
    public var requestTimeout: Duration
    /// Sent with every request; sensitive ones (marked secret, Authorization, Proxy-Authorization,
    /// Cookie) are never stored or printed.
    public var headers: [HeaderField]
    public var output: OutputMode
    /// Allow HTTP redirects from https to http (off by default).
    public var allowHTTPSDowngrade: Bool
    /// SSH private key files to try, in order; empty for the usual `~/.ssh/id_*`.
    public var identityFiles: [String]
    /// The SSH known hosts file; `nil` for `~/.ssh/known_hosts`.
    public var knownHostsFile: String?
    /// Trust SSH hosts seen for the first time and record their keys (never a changed key).
    public var acceptNewHostKeys: Bool
    /// A file name per URL, by position; `nil` derives it from the URL.
    public var names: [String?]
    /// Where the state lives; `nil` for `outputDirectory/.fdl`.
    public var stateDirectory: String?
    /// Replace a file at a destination that `fdl` did not download (`--allow-overwrite`); by
    /// default it is kept and the download gets another name (see ``DownloadPlanner``).
    public var allowOverwrite: Bool
    /// Further URLs of the same file per URL, by position (mirrors, tried in turn); empty entries
    /// (or a shorter array) have none.
    public var mirrors: [[URL]] = []
    /// Connections one download may use at once (`-x`, `--max-connections`): `nil` for the
    /// library's automatic choice (up to `Downloader.automaticConnections` for a large file).
    public var maxConnections: Int? = nil
    /// `--proxy URL`: the proxy for every URL instead of the environment's; `""` for none; `nil`
    /// follows the environment (`http_proxy`, `https_proxy`, `all_proxy`, as curl).
    public var proxy: String? = nil
    /// `--noproxy LIST`: hosts reached directly, comma-separated (`*` for all), instead of
    /// `no_proxy`; `nil` follows the environment.
    public var noProxy: String? = nil
    /// How HTTPS and FTPS servers are verified: `--cacert`, `--capath` (or the environment as
    /// curl reads it) and `-k/--insecure`.
    public var trust = TLSTrust()
    /// `--endpoint-url`, `--region`, `--profile` for `s3://` URLs.
    public var s3 = S3Settings()
    /// `--ftp-port`, `--no-passive-ftp`, `--ssl-reqd` for `ftp://` and `ftps://` URLs.
    public var ftp = FTPSettings()
    /// `--content-disposition`: save each file under the name the server's `Content-Disposition`
    /// suggests (sanitised, never outside the directory, never over a file that is there).
    public var usesServerFileName = false
    /// `-N/--timestamping`: check a completed file against the server and fetch it again only
    /// when it changed.
    public var timestamping = false
    /// `--on-complete CMD`: run once for each file the run completes (`GetSession`); `nil`: none.
    public var onComplete: String? = nil
    /// `--on-complete-timeout`: the bound of one run of ``onComplete``, after which it is killed
    /// with its process group (default 30 s, the agent's `--delivery-timeout`).
    public var onCompleteTimeout: Duration = .seconds(30)
    /// A cap on each download's transfer rate in bytes per second (`--limit-rate`); `nil` for none.
    public var maxBytesPerSecond: Int64? = nil
    /// `-o -`: the one URL's body goes to standard output as it arrives (`StandardOutputTransfer`):
    /// no file, no state, no resume.
    public var writesToStandardOutput = false
    /// The most bytes a file may have (`--max-filesize`, `DownloadOptions.maxFileSize`); `nil`
    /// for no limit.
    public var maxFileSize: Int64? = nil
    /// A cap on all downloads of the run together, in bytes per second (`--limit-rate-total`);
    /// `nil` for none.
    public var overallBytesPerSecond: Int64? = nil
    /// How long a download whose link expired waits for `fdl url` (`--fresh-url-timeout`); `nil`:
    /// it does not wait (a refused download fails at once, as before).
    public var freshURLTimeout: Duration? = nil
    /// An attempt fails when its connection is not established within this time (`--connect-timeout`).
    public var connectTimeout: Duration = .seconds(30)
    /// A download fails when it has been downloading, or waiting to retry or for the network, for
    /// this long in this run, over all its attempts (`--max-time`); `nil` for the library's
    /// default of 7 days.
    public var maxTime: Duration? = nil
    /// How long a download waits for the network (no route, no link) before it fails with "no
    /// network for N s: giving up" (`--max-network-wait`; `DownloaderConfiguration.maxNetworkWait`);
    /// `nil` for ``defaultMaxNetworkWait``.
    public var maxNetworkWait: Duration? = nil
    /// 30 s: a person watches a foreground `fdl get` (the agent waits as long as the library's
    /// default).
    public static let defaultMaxNetworkWait: Duration = .seconds(30)
    /// The wait before the first retry, doubled for each further one (`--retry-wait`).
    public var retryWait: Duration = .seconds(1)
    /// The `User-Agent` (`-U`); `nil` for the transport's default.
    public var userAgent: String? = nil
    /// Credentials for servers that ask (`--user`, `--netrc`): held in memory only, never
    /// stored or printed.
    public var credentials: CredentialSource = CredentialSource()
    /// Print nothing but errors (`-q`).
    public var quiet = false
    /// Print each HTTP request's and answer's status line and header fields, secrets redacted,
    /// and the library's log messages to standard error (`-v`).
    public var verbose = false
    /// `-c`: also continue a partial file fdl did not make when the server shows it is the same
    /// file (`GetSession.continuingPartialFile(_:options:stagingSuffix:)`).
    public var continuesPartialFiles = false
    /// `-R`: finished files get the server's modification time (`DownloadOptions.keepsRemoteTime`).
    public var keepsRemoteTime = false
    /// `-b FILE`, `--load-cookies FILE`: a Netscape cookie file libcurl reads cookies from
    /// (`HTTPTransport.Configuration.cookieFile`); never written.
    public var cookieFile: String? = nil
    /// `--spider`: ask the server for each URL, download nothing (`Spider`).
    public var spider = false

    public init(urls: [URL], outputDirectory: URL, concurrency: Int = 4, sha256: [String?] = [],
                retries: Int = 5, requestTimeout: Duration = .seconds(60), headers: [HeaderField] = [],
                output: OutputMode = .plain, allowHTTPSDowngrade: Bool = false, identityFiles: [String] = [],
                knownHostsFile: String? = nil, acceptNewHostKeys: Bool = false, names: [String?] = [],
                stateDirectory: String? = nil, allowOverwrite: Bool = false) {
        self.stateDirectory = stateDirectory
        self.allowOverwrite = allowOverwrite
        self.urls = urls
        self.outputDirectory = outputDirectory
        self.concurrency = concurrency
        self.sha256 = sha256
        self.retries = retries
        self.requestTimeout = requestTimeout
        self.headers = headers
        self.output = output
        self.allowHTTPSDowngrade = allowHTTPSDowngrade
        self.identityFiles = identityFiles
        self.knownHostsFile = knownHostsFile
        self.acceptNewHostKeys = acceptNewHostKeys
        self.names = names
    }

    /// The transfer options every download of this command gets.
    public var transferOptions: TransferOptions {
        var options = TransferOptions(headers: headers, userAgent: userAgent, requestTimeout: requestTimeout,
                                      connectTimeout: connectTimeout, maxBytesPerSecond: maxBytesPerSecond)
        if let maxTime { options.resourceTimeout = maxTime }
        return options
    }

    /// The retry policy every download of this command gets: ``retries`` retries, the first
    /// after ``retryWait``, each further one after twice the wait before it (at most 5 minutes,
    /// or ``retryWait`` when that is longer), spread by ±20 %.
    public var retryPolicy: RetryPolicy {
        RetryPolicy(maxRetries: retries, initialDelay: retryWait, maxDelay: max(.seconds(300), retryWait))
    }
}
