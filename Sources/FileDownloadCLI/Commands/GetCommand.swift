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

    @OptionGroup(title: "Downloading") public var downloading: DownloadingOptions

    @OptionGroup(title: "Downloading") public var onComplete: OnCompleteOption

    @OptionGroup(title: "Naming") public var state: StateOptions

    @OptionGroup(title: "Naming") public var naming: NamingOptions

    @OptionGroup(title: "Connections") public var connections: ConnectionOptions

    @OptionGroup(title: "Network") public var network: NetworkOptions

    @OptionGroup(title: "Network") public var s3: S3Options

    @OptionGroup(title: "Network") public var ftp: FTPOptions

    @OptionGroup(title: "Authentication") public var authentication: AuthenticationOptions

    @OptionGroup(title: "Output") public var printing: OutputOptions

    public init() {}

    public mutating func validate() throws {
        if let directoryPrefix = naming.directoryPrefix {
            guard state.directory == "." || state.directory == directoryPrefix else {
                throw ValidationError("-P/--output-dir and -d both name the directory files go to; give one")
            }
            state.directory = directoryPrefix
        }
        if naming.noClobber, naming.allowOverwrite {
            throw ValidationError("--no-clobber (keep a file fdl did not download, the default) and --allow-overwrite contradict each other; give one")
        }
        if downloading.socket != nil, !downloading.background { throw ValidationError("--socket goes with --background (or `fdl add`)") }
        if let socket = downloading.socket, socket.isEmpty { throw ValidationError("--socket cannot be empty") }
        // An input file is read once, in run(): standard input cannot be read twice.
        if downloading.inputFile == nil { _ = try settings() }
    }

    /// The validated settings of this command line, with the input file's URLs after the
    /// arguments' (the file is read here).
    ///
    /// - Throws: `ValidationError` with a message that says what to fix, or ``CLIError``
    ///   (usage) for a line of the input file.
    public func settings() throws -> GetSettings {
        try settings(input: downloading.inputFile.map(InputFile.load))
    }

    /// The validated settings of this command line plus `input`'s URLs.
    func settings(input: InputFile?) throws -> GetSettings {
        let entries = input?.entries ?? []
        guard !urls.isEmpty || !entries.isEmpty else {
            throw ValidationError(downloading.inputFile.map { "\($0 == "-" ? "standard input" : $0) has no URLs" }
                                  ?? "give at least one URL, e.g. `fdl get https://example.org/file.iso`, or -i FILE to read them "
                                  + "from a file (-i - reads standard input: `cat list | fdl get -i -`)")
        }
        let total = urls.count + entries.count
        guard downloading.sha256.count <= total else {
            throw ValidationError("\(downloading.sha256.count) --sha256 values for \(total) URLs: give at most one per URL, in URL order")
        }
        for digest in downloading.sha256 { _ = try Self.checked(option: "--sha256") { try InputValidation.sha256(digest) } }
        var names = naming.names
        let toStandardOutput = naming.output == "-"
        if toStandardOutput, total != 1 || !names.isEmpty {
            throw ValidationError("-o - writes the body of one URL to standard output; give exactly one URL")
        }
        if let output = naming.output, !toStandardOutput {
            names = try Self.outputName(output, urlCount: total, namesGiven: names.count, directory: state.url)
        }
        guard names.count <= total else {
            throw ValidationError("\(names.count) --name values for \(total) URLs: give at most one per URL, in URL order")
        }
        let all = try Self.combine(arguments: urls.map(Self.parseURL), names: names, sha256: downloading.sha256,
                                   input: entries, source: downloading.inputFile == "-" ? "standard input" : downloading.inputFile ?? "")
        let givenNames = all.names.compactMap { $0 }
        for name in givenNames {
            if let problem = DestinationPolicy.problem(withName: name) {
                throw ValidationError("--name is not a plain file name (no '/', no leading '.'): \(problem)")
            }
        }
        guard Set(givenNames).count == givenNames.count else { throw ValidationError("each --name must be different") }
        guard Self.jobsRange.contains(connections.jobs) else {
            throw ValidationError("-j must be between \(Self.jobsRange.lowerBound) and \(Self.jobsRange.upperBound), not \(connections.jobs)")
        }
        try Self.checkConnectionsPerHost(connections.maxConnectionsPerHost)
        guard Self.retryRange.contains(downloading.retry) else {
            throw ValidationError("--retry must be between 0 and \(Self.retryRange.upperBound), not \(downloading.retry)")
        }
        let requestTimeout = try Self.duration(network.timeout, option: "--timeout", range: Self.timeoutRange)
        let headerFields = try network.headers.map { try Self.parseHeader($0, option: "--header", isSecret: false) }
            + authentication.secretHeaders.map { try Self.parseHeader($0, option: "--header-secret", isSecret: true) }
        var settings = GetSettings(
            urls: all.urls, outputDirectory: state.url, concurrency: connections.jobs, sha256: all.sha256,
            retries: downloading.retry, requestTimeout: requestTimeout, headers: headerFields,
            output: printing.json ? .json : (Terminal.isTerminal ? .terminal : .plain),
            allowHTTPSDowngrade: network.insecureAllowHttpDowngrade, identityFiles: authentication.identity,
            knownHostsFile: authentication.knownHosts, acceptNewHostKeys: authentication.acceptNewHostKeys, names: all.names,
            stateDirectory: state.state.path, allowOverwrite: naming.allowOverwrite)
        if all.mirrors.contains(where: { !$0.isEmpty }) { settings.mirrors = all.mirrors }
        settings.maxConnectionsPerHost = connections.maxConnectionsPerHost
        settings.onComplete = onComplete.command
        settings.onCompleteTimeout = try onComplete.timeout()
        try applyHabitOptions(to: &settings)
        try applyServerOptions(to: &settings)
        settings.s3 = try s3.settings()
        settings.ftp = try ftp.settings()
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
            if downloading.background { return try await runInBackground(settings) }
            if downloading.dryRun { return try await DryRun(settings: settings).run() }
            try settings.credentials.askForMissingPassword()
            if settings.spider { return try await Spider(settings: settings).run() }
            if settings.writesToStandardOutput { return try await StandardOutputTransfer(settings: settings).run() }
            return try await GetSession(settings: settings).run()
        }
    }

    /// Hands the downloads to the agent (``BackgroundSubmission``), refusing options it would not apply.
    func runInBackground(_ settings: GetSettings) async throws -> ExitStatus {
        let refused = BackgroundSubmission.refusedOptions(settings, dryRun: downloading.dryRun)
        guard refused.isEmpty else {
            throw CLIError(.usage, "\(refused.joined(separator: ", ")) cannot go to the download agent "
                           + "(it uses its own settings); run `fdl get` without --background for them")
        }
        return try await BackgroundSubmission(settings: settings, socketPath: AgentOptions.socketPath(downloading.socket)).run()
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
