public import ArgumentParser
import FileDownload
import Foundation

/// `fdl get URL...`: downloads, or continues downloading, the given URLs.
public struct GetCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Download URLs into DIR, continuing what an earlier run left.",
        discussion: """
            Each file is saved as DIR/NAME, NAME being the last path component of the URL (made \
            unique). Bytes land in NAME.part and are moved to NAME only after the size and any \
            --sha256 checked out. Output is a live display on a terminal, log lines otherwise, \
            and JSON lines with --json.
            """)

    @Argument(help: ArgumentHelp("http://, https:// or sftp:// URLs.", valueName: "URL"))
    public var urls: [String] = []

    @OptionGroup public var state: StateOptions

    @Option(name: [.short, .customLong("jobs")], help: "Downloads at once.")
    public var jobs: Int = 4

    @Option(name: .customLong("sha256"), help: ArgumentHelp(
        "Expected SHA-256 (64 hex digits); give it once per URL, in the same order.", valueName: "HEX"))
    public var sha256: [String] = []

    @Option(name: .customLong("name"), help: ArgumentHelp(
        "File name in DIR instead of the URL's; once per URL, in the same order.", valueName: "NAME"))
    public var names: [String] = []

    @Option(help: ArgumentHelp("Automatic retries of transient failures per download.", valueName: "N"))
    public var retry: Int = 5

    @Option(help: ArgumentHelp("Give up an attempt when no byte arrives for S seconds.", valueName: "S"))
    public var timeout: Double = 60

    @Option(name: .customLong("header"), help: ArgumentHelp(
        "Extra request header 'Name: value' (repeatable). Authorization and Cookie are never stored.",
        valueName: "H"))
    public var headers: [String] = []

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

    public init() {}

    public mutating func validate() throws {
        _ = try settings()
    }

    /// The validated settings of this command line.
    ///
    /// - Throws: `ValidationError` with a message that says what to fix.
    public func settings() throws -> GetSettings {
        guard !urls.isEmpty else { throw ValidationError("give at least one URL, e.g. `fdl get https://example.org/file.iso`") }
        let parsed = try urls.map(Self.parseURL)
        guard sha256.count <= urls.count else {
            throw ValidationError("\(sha256.count) --sha256 values for \(urls.count) URLs: give at most one per URL, in URL order")
        }
        for digest in sha256 where !FileDigest.isSHA256(digest) {
            throw ValidationError("--sha256 '\(digest)' is not 64 hex digits")
        }
        guard names.count <= urls.count else {
            throw ValidationError("\(names.count) --name values for \(urls.count) URLs: give at most one per URL, in URL order")
        }
        for name in names where FileNameSanitizer.sanitize(name) != name || name.hasPrefix(".") {
            throw ValidationError("--name '\(name)' is not a plain file name (no '/', no leading '.')")
        }
        guard Set(names).count == names.count else { throw ValidationError("each --name must be different") }
        guard (1...64).contains(jobs) else { throw ValidationError("-j must be between 1 and 64, not \(jobs)") }
        guard retry >= 0 else { throw ValidationError("--retry must be 0 or more, not \(retry)") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        let headerFields = try headers.map(Self.parseHeader)
        return GetSettings(
            urls: parsed, outputDirectory: state.url, concurrency: jobs, sha256: sha256.map { $0 },
            retries: retry, requestTimeout: .milliseconds(Int64(timeout * 1000)), headers: headerFields,
            output: json ? .json : (Terminal.isTerminal ? .terminal : .plain),
            allowHTTPSDowngrade: insecureAllowHttpDowngrade, identityFiles: identity,
            knownHostsFile: knownHosts, acceptNewHostKeys: acceptNewHostKeys, names: names.map { $0 },
            stateDirectory: state.state.path)
    }

    /// Parses a URL argument: it must have a scheme and a host.
    static func parseURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            throw ValidationError("'\(text)' is not a URL; write it with its scheme, e.g. https://host/path")
        }
        guard let host = url.host, !host.isEmpty else {
            throw ValidationError("'\(url.redactingPassword)' has no host")
        }
        return url
    }

    /// Parses `Name: value`.
    static func parseHeader(_ text: String) throws -> HeaderField {
        guard let colon = text.firstIndex(of: ":") else {
            throw ValidationError("a --header value must look like 'Name: value'")
        }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(where: { $0.isWhitespace }) else {
            throw ValidationError("--header needs a field name before ':'")
        }
        return HeaderField(name: name, value: value)
    }

    public func run() async throws {
        try await Self.finish { try await GetSession(settings: try settings()).run() }
    }

    /// Runs `body`, prints a ``CLIError``'s message, and exits with the status.
    static func finish(_ body: () async throws -> ExitStatus) async throws {
        let status: ExitStatus
        do {
            status = try await body()
        } catch let error as CLIError {
            Terminal.writeError("fdl: \(error.message)")
            throw ExitCode(error.status.rawValue)
        }
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
