public import ArgumentParser
import FileDownload
import Foundation

/// `fdl get URL...`: downloads, or continues downloading, the given URLs.
public struct GetCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Download URLs into DIR, continuing what an earlier run left.",
        discussion: """
            Each file is saved as DIR/NAME, NAME being the last path component of the URL. A file \
            at DIR/NAME that fdl did not download is kept and the download is saved as \
            NAME.1.EXT, NAME.2.EXT, ... instead (unless --allow-overwrite). Bytes land in \
            NAME.part and are moved to NAME only after the size and any --sha256 checked out. \
            Output is a live display on a terminal, log lines otherwise, and JSON lines with --json.
            """)

    @Argument(help: ArgumentHelp("http://, https://, ftp://, ftps://, sftp:// or s3:// URLs.", valueName: "URL"))
    public var urls: [String] = []

    @OptionGroup public var state: StateOptions

    @OptionGroup public var onComplete: OnCompleteOption

    @OptionGroup public var s3: S3Options

    @Option(name: [.short, .customLong("jobs")], help: "Downloads at once.")
    public var jobs: Int = 4

    @Option(name: .customLong("max-connections-per-host"), help: ArgumentHelp(
        "Connections open at once to one server (scheme, host and port), over all downloads (1...\(Self.connectionsPerHostRange.upperBound); default 8).",
        valueName: "N"))
    public var maxConnectionsPerHost: Int = 8

    @Option(name: .customLong("sha256"), help: ArgumentHelp(
        "Expected SHA-256 (64 hex digits); give it once per URL, in the same order.", valueName: "HEX"))
    public var sha256: [String] = []

    @Option(name: .customLong("name"), help: ArgumentHelp(
        "File name in DIR instead of the URL's; once per URL, in the same order.", valueName: "NAME"))
    public var names: [String] = []

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "File name in DIR for the one URL given (as aria2c -o); the directory is -d DIR. -o - writes the body to "
        + "standard output as it arrives (one connection, progress on standard error, no resume, no retry).",
        valueName: "NAME"))
    public var output: String?

    @Option(help: ArgumentHelp("Automatic retries of transient failures per download (0...\(Self.retryRange.upperBound)).",
                               valueName: "N"))
    public var retry: Int = 5

    @Option(help: ArgumentHelp(
        "Give up an attempt when no byte arrives for S seconds (\(Self.timeoutRange.lowerBound)...\(Int(Self.timeoutRange.upperBound))).",
        valueName: "S"))
    public var timeout: Double = 60

    @Option(name: .customLong("header"), help: ArgumentHelp(
        "Extra request header 'Name: value' (repeatable). Authorization, Proxy-Authorization and Cookie are never stored.",
        valueName: "H"))
    public var headers: [String] = []

    @Option(name: .customLong("header-secret"), help: ArgumentHelp(
        "Extra request header 'Name: value' whose value is a secret: never stored, never printed (repeatable).",
        valueName: "H"))
    public var secretHeaders: [String] = []

    @Flag(help: "Replace a file at DIR/NAME that fdl did not download (by default it is kept and the download gets a new name).")
    public var allowOverwrite = false

    @Flag(name: [.customLong("no-clobber"), .customLong("nc", withSingleDash: true)],
          help: "Accepted for wget/curl habits: fdl never replaces a file it did not download (the default; see --allow-overwrite).")
    public var noClobber = false

    @Option(name: [.customShort("P"), .customLong("directory-prefix"), .customLong("output-dir")], help: ArgumentHelp(
        "The same as -d DIR: where files go (as wget -P, curl --output-dir).", valueName: "DIR"))
    public var directoryPrefix: String?

    @Flag(help: "Print one JSON event per line instead of the display (schema in docs/cli.md).")
    public var json = false

    @Flag(help: "Follow redirects from https to http (refused by default).")
    public var insecureAllowHttpDowngrade = false

    @Option(help: ArgumentHelp("SSH private key for sftp:// (repeatable; default ~/.ssh/id_*).", valueName: "FILE"))
    public var identity: [String] = []

    @Option(help: ArgumentHelp("SSH known hosts file (default ~/.ssh/known_hosts).", valueName: "FILE"))
    public var knownHosts: String?

    @Flag(help: "Trust SSH hosts seen for the first time and record their keys (a changed key is always refused).")
    public var acceptNewHostKeys = false

    // MARK: opts
    @Option(name: [.customShort("i"), .customLong("input-file")], help: ArgumentHelp(
        "Read URLs from FILE (- for standard input): one file a line, mirrors separated by TAB, indented out=NAME "
        + "and checksum=sha-256=HEX lines below a URL, # comments (see docs/cli.md).", valueName: "FILE"))
    public var inputFile: String?

    @Option(name: .customLong("limit-rate"), help: ArgumentHelp(
        "Cap each download at RATE bytes/s; K, M, G suffixes (1024-based), e.g. 500K, 1.5M.", valueName: "RATE"))
    public var limitRate: String?

    @Option(name: .customLong("max-filesize"), help: ArgumentHelp(
        "Fail a download whose file is larger than SIZE bytes (K, M, G suffixes, 1024-based; 0: no limit): a larger "
        + "announced size before the body, a body without one at the limit. Not retried; nothing is kept.",
        valueName: "SIZE"))
    public var maxFileSize: String?

    @Option(name: .customLong("limit-rate-total"), help: ArgumentHelp(
        "Cap all downloads of this run together at RATE bytes/s (same RATE as --limit-rate; both may be given).",
        valueName: "RATE"))
    public var limitRateTotal: String?

    @Option(name: [.customShort("x"), .customLong("max-connections")], help: ArgumentHelp(
        "Connections one download may use at once (1...\(Self.maxConnectionsRange.upperBound); default: automatic, up to 4 "
        + "for files of 16 MiB and more from servers that take ranges). 1: one connection per file.", valueName: "N"))
    public var maxConnections: Int?

    @Option(name: .customLong("fresh-url-timeout"), help: ArgumentHelp(
        "When a server refuses a link that worked (401/403/410), wait up to S seconds for `fdl url ID NEWURL` "
        + "before failing (default: do not wait).", valueName: "S"))
    public var freshURLTimeout: Double?

    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp(
        "Give up an attempt when its connection is not set up within S seconds (default 30).", valueName: "S"))
    public var connectTimeout: Double?

    @Option(name: .customLong("max-time"), help: ArgumentHelp(
        "Fail a download after S seconds in this run of downloading and of waiting to retry or for the network, "
        + "over all its attempts (bytes are kept).",
        valueName: "S"))
    public var maxTime: Double?

    @Option(name: .customLong("max-network-wait"), help: ArgumentHelp(
        "Fail a download that has waited S seconds for the network (no route, link down) (default 30; bytes are kept).",
        valueName: "S"))
    public var maxNetworkWait: Double?

    @Option(name: .customLong("retry-wait"), help: ArgumentHelp(
        "Wait S seconds before the first retry, doubling for each further one (default 1).", valueName: "S"))
    public var retryWait: Double?

    @Option(name: [.customShort("U"), .customLong("user-agent")], help: ArgumentHelp(
        "The User-Agent header for HTTP(S).", valueName: "AGENT"))
    public var userAgent: String?

    @Option(name: .customLong("user"), help: ArgumentHelp(
        "User and password for servers that ask (HTTP 401, SSH password); without :PASS it is asked on the terminal. "
        + "Never stored or printed.", valueName: "USER[:PASS]"))
    public var user: String?

    @Flag(name: .customLong("netrc"), help: "Take user and password for a host from ~/.netrc (as curl --netrc).")
    public var netrc = false

    @Option(name: .customLong("netrc-file"), help: ArgumentHelp(
        "Take user and password for a host from FILE, in .netrc format.", valueName: "FILE"))
    public var netrcFile: String?

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Print nothing but errors.")
    public var quiet = false

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: ArgumentHelp(
        "Print each request's and answer's status line and header fields to standard error (HTTP); "
        + "Authorization, Cookie and signed URL values are shown as [redacted]."))
    public var verbose = false

    @Flag(name: [.customShort("c"), .customLong("continue")], help: ArgumentHelp(
        "Also continue a partial file fdl did not make (left by curl or wget) when the server shows it is the same "
        + "file (its Last-Modified is the file's time, or before the file was created); otherwise say why "
        + "and download it under a new "
        + "name, keeping the file. fdl always continues its own downloads."))
    public var continueDownloads = false

    @Flag(name: [.customShort("R"), .customLong("remote-time")], help: ArgumentHelp(
        "Give each finished file the server's modification time (HTTP Last-Modified, FTP MDTM, SFTP mtime), "
        + "as curl -R and wget do."))
    public var remoteTime = false

    @Option(name: [.customShort("b"), .customLong("cookie")], help: ArgumentHelp(
        "Send the cookies of FILE (Netscape cookies.txt format, as curl -b FILE) to HTTP servers they match; "
        + "'NAME=VALUE; ...' sends those cookies. Never stored or printed; fdl writes no cookie file.",
        valueName: "FILE"))
    public var cookie: String?

    @Option(name: .customLong("load-cookies"), help: ArgumentHelp(
        "The same as -b FILE (as wget --load-cookies).", valueName: "FILE"))
    public var loadCookies: String?

    @Flag(name: .customLong("spider"), help: ArgumentHelp(
        "Ask the server for each URL and download nothing: print each answer; exit 0 when every URL "
        + "answers 2xx, else the code the failed download would give."))
    public var spider = false

    @Flag(name: .customLong("dry-run"), help: "Print what would be downloaded where, and change nothing.")
    public var dryRun = false

    // MARK: net

    @Option(help: ArgumentHelp(
        "Proxy for every URL instead of http_proxy/https_proxy/all_proxy ('' for none); user:password@ in it is never stored or printed.",
        valueName: "URL"))
    public var proxy: String?

    @Option(name: .customLong("noproxy"), help: ArgumentHelp(
        "Hosts reached without the proxy, comma-separated ('*' for all), instead of no_proxy.", valueName: "LIST"))
    public var noProxy: String?

    @Option(name: .customLong("cacert"), help: ArgumentHelp(
        "Verify HTTPS and FTPS servers with the CA certificates (PEM) in FILE instead of the system's "
        + "(as curl --cacert; default from CURL_CA_BUNDLE, else SSL_CERT_FILE).", valueName: "FILE"))
    public var caCertificate: String?

    @Option(name: .customLong("capath"), help: ArgumentHelp(
        "Also verify HTTPS and FTPS servers with the hashed CA certificates in DIR (openssl rehash; "
        + "as curl --capath; default from SSL_CERT_DIR).", valueName: "DIR"))
    public var caDirectory: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: ArgumentHelp(
        "Do not verify HTTPS and FTPS servers (certificate and name), for a test server with a self-signed "
        + "certificate: anyone on the way can read and change the bytes. Warned about on every run; "
        + "to trust a private CA use --cacert instead."))
    public var insecure = false

    @Flag(name: [.customShort("J"), .customLong("content-disposition")],
          help: "Save each file under the name of the server's Content-Disposition (sanitised, kept in DIR, never over another file; as curl -J).")
    public var contentDisposition = false

    @Option(name: .customLong("mirror"), help: ArgumentHelp(
        "Another URL of the same file, tried in turn when one fails (repeatable; with one URL, else use -i).", valueName: "URL"))
    public var mirrorURLs: [String] = []

    @Flag(name: [.customShort("N"), .customLong("timestamping")], help: "Check a completed file against the server and fetch it again only when it changed.")
    public var timestamping = false

    @Flag(help: "Hand the downloads to your download agent (starting one if none runs) and return at once; same as `fdl add`.")
    public var background = false

    @Option(name: .customLong("socket"), help: ArgumentHelp(
        "With --background: the agent's socket (default $XDG_RUNTIME_DIR/fdl/agent.sock, else ~/.local/state/fdl/agent.sock).",
        valueName: "PATH"))
    public var socket: String?

    public init() {}

    public mutating func validate() throws {
        if let directoryPrefix {
            guard state.directory == "." || state.directory == directoryPrefix else {
                throw ValidationError("-P/--output-dir and -d both name the directory files go to; give one")
            }
            state.directory = directoryPrefix
        }
        if noClobber, allowOverwrite {
            throw ValidationError("--no-clobber (keep a file fdl did not download, the default) and --allow-overwrite contradict each other; give one")
        }
        if socket != nil, !background { throw ValidationError("--socket goes with --background (or `fdl add`)") }
        if let socket, socket.isEmpty { throw ValidationError("--socket cannot be empty") }
        // An input file is read once, in run(): standard input cannot be read twice.
        if inputFile == nil { _ = try settings() }
    }

    /// The validated settings of this command line, with the input file's URLs after the
    /// arguments' (the file is read here).
    ///
    /// - Throws: `ValidationError` with a message that says what to fix, or ``CLIError``
    ///   (usage) for a line of the input file.
    public func settings() throws -> GetSettings {
        try settings(input: inputFile.map(InputFile.load))
    }

    /// The validated settings of this command line plus `input`'s URLs.
    func settings(input: InputFile?) throws -> GetSettings {
        let entries = input?.entries ?? []
        guard !urls.isEmpty || !entries.isEmpty else {
            throw ValidationError(inputFile.map { "\($0 == "-" ? "standard input" : $0) has no URLs" }
                                  ?? "give at least one URL, e.g. `fdl get https://example.org/file.iso`, or -i FILE to read them "
                                  + "from a file (-i - reads standard input: `cat list | fdl get -i -`)")
        }
        let total = urls.count + entries.count
        guard sha256.count <= total else {
            throw ValidationError("\(sha256.count) --sha256 values for \(total) URLs: give at most one per URL, in URL order")
        }
        for digest in sha256 { _ = try Self.checked(option: "--sha256") { try InputValidation.sha256(digest) } }
        var names = names
        let toStandardOutput = output == "-"
        if toStandardOutput, total != 1 || !names.isEmpty {
            throw ValidationError("-o - writes the body of one URL to standard output; give exactly one URL")
        }
        if let output, !toStandardOutput {
            names = try Self.outputName(output, urlCount: total, namesGiven: names.count, directory: state.url)
        }
        guard names.count <= total else {
            throw ValidationError("\(names.count) --name values for \(total) URLs: give at most one per URL, in URL order")
        }
        let all = try Self.combine(arguments: urls.map(Self.parseURL), names: names, sha256: sha256,
                                   input: entries, source: inputFile == "-" ? "standard input" : inputFile ?? "")
        let givenNames = all.names.compactMap { $0 }
        for name in givenNames {
            if let problem = DestinationPolicy.problem(withName: name) {
                throw ValidationError("--name is not a plain file name (no '/', no leading '.'): \(problem)")
            }
        }
        guard Set(givenNames).count == givenNames.count else { throw ValidationError("each --name must be different") }
        guard Self.jobsRange.contains(jobs) else {
            throw ValidationError("-j must be between \(Self.jobsRange.lowerBound) and \(Self.jobsRange.upperBound), not \(jobs)")
        }
        try Self.checkConnectionsPerHost(maxConnectionsPerHost)
        guard Self.retryRange.contains(retry) else {
            throw ValidationError("--retry must be between 0 and \(Self.retryRange.upperBound), not \(retry)")
        }
        let requestTimeout = try Self.duration(timeout, option: "--timeout", range: Self.timeoutRange)
        let headerFields = try headers.map { try Self.parseHeader($0, option: "--header", isSecret: false) }
            + secretHeaders.map { try Self.parseHeader($0, option: "--header-secret", isSecret: true) }
        var settings = GetSettings(
            urls: all.urls, outputDirectory: state.url, concurrency: jobs, sha256: all.sha256,
            retries: retry, requestTimeout: requestTimeout, headers: headerFields,
            output: json ? .json : (Terminal.isTerminal ? .terminal : .plain),
            allowHTTPSDowngrade: insecureAllowHttpDowngrade, identityFiles: identity,
            knownHostsFile: knownHosts, acceptNewHostKeys: acceptNewHostKeys, names: all.names,
            stateDirectory: state.state.path, allowOverwrite: allowOverwrite)
        if all.mirrors.contains(where: { !$0.isEmpty }) { settings.mirrors = all.mirrors }
        settings.maxConnectionsPerHost = maxConnectionsPerHost
        settings.onComplete = onComplete.command
        try applyHabitOptions(to: &settings)
        try applyServerOptions(to: &settings)
        settings.s3 = try s3.settings()
        settings = try withNetOptions(settings)
        if toStandardOutput { try checkStandardOutput(&settings) }
        return settings
    }

    /// The file name `-o NAME` gives the one URL: a plain name in DIR. A value that names a
    /// directory (what `-o` meant in fdl before; in curl, wget -O and aria2c it names the file) gets a message
    /// pointing to `-d`.
    static func outputName(_ output: String, urlCount: Int, namesGiven: Int, directory: URL) throws -> [String] {
        guard urlCount == 1, namesGiven == 0 else {
            throw ValidationError("-o NAME names the file of one URL; for \(urlCount) URLs give --name once per URL "
                                  + "(or use -i FILE), and the directory with -d DIR")
        }
        var isDirectory: ObjCBool = false
        let candidate = URL(fileURLWithPath: output, relativeTo: directory).standardizedFileURL
        if output.contains("/") || output.hasSuffix("/")
            || (FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw ValidationError("-o takes a file name, not a directory ('\(output)'); to download into a directory use -d DIR")
        }
        return [output]
    }

    /// The values `-j` accepts.
    static let jobsRange = 1...64
    /// `--max-connections-per-host` of `fdl get` and `fdl agent`.
    static let connectionsPerHostRange = 1...64

    /// Throws the usage error of a `--max-connections-per-host` outside ``connectionsPerHostRange``.
    static func checkConnectionsPerHost(_ value: Int) throws {
        guard connectionsPerHostRange.contains(value) else {
            throw ValidationError("--max-connections-per-host must be between \(connectionsPerHostRange.lowerBound) and "
                                  + "\(connectionsPerHostRange.upperBound), not \(value)")
        }
    }
    /// The values `--retry` accepts: up to about three days of retries at the maximum backoff.
    static let retryRange = 0...1000
    /// The seconds `--timeout` accepts: one millisecond (the timeout's resolution) to seven days
    /// (the resource timeout, beyond which a request timeout means nothing). NaN is in no range.
    static let timeoutRange = 0.001...604_800.0

    /// Parses a URL argument with `InputValidation.url(_:)` (a scheme, a host, a port of 1 to
    /// 65535). Messages never show a password.
    static func parseURL(_ text: String) throws -> URL {
        try checked { try InputValidation.url(text) }
    }

    /// Parses `Name: value` given to `option` and checks it with
    /// `InputValidation.header(name:value:isSecret:)` (the name an HTTP token, the value without a
    /// control character but tab). Messages name the field, never its value.
    static func parseHeader(_ text: String, option: String, isSecret: Bool) throws -> HeaderField {
        guard let colon = text.firstIndex(of: ":") else {
            throw ValidationError("a \(option) value must look like 'Name: value'")
        }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return try checked(option: option) { try InputValidation.header(name: name, value: value, isSecret: isSecret) }
    }

    /// Runs a check of `InputValidation`; its error becomes a `ValidationError` (exit 64) with
    /// the same message, after `option` when one is given.
    static func checked<T>(option: String? = nil, _ check: () throws -> T) throws -> T {
        do {
            return try check()
        } catch let error as DownloadError {
            throw ValidationError(option.map { "\($0): " + error.message } ?? error.message)
        }
    }

    public func run() async throws {
        try await Self.finish {
            var settings = try settings()
            if settings.trust.skipsVerification { Terminal.writeError(TLSTrust.insecureWarning) }
            if background { return try await runInBackground(settings) }
            if dryRun { return try await DryRun(settings: settings).run() }
            try settings.credentials.askForMissingPassword()
            if settings.spider { return try await Spider(settings: settings).run() }
            if settings.writesToStandardOutput { return try await StandardOutputTransfer(settings: settings).run() }
            return try await GetSession(settings: settings).run()
        }
    }

    /// Hands the downloads to the agent (``BackgroundSubmission``), refusing options it would not apply.
    func runInBackground(_ settings: GetSettings) async throws -> ExitStatus {
        let refused = BackgroundSubmission.refusedOptions(settings, dryRun: dryRun)
        guard refused.isEmpty else {
            throw CLIError(.usage, "\(refused.joined(separator: ", ")) cannot go to the download agent "
                           + "(it uses its own settings); run `fdl get` without --background for them")
        }
        return try await BackgroundSubmission(settings: settings, socketPath: AgentOptions.socketPath(socket)).run()
    }

    /// Runs `body`, prints a ``CLIError``'s message, and exits with the status.
    static func finish(_ body: () async throws -> ExitStatus) async throws {
        let status: ExitStatus
        do {
            status = try await body()
        } catch let error as CLIError {
            throw ControlCommandRunner.fail(error.status, error.message)
        }
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
