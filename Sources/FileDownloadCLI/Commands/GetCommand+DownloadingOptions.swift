public import ArgumentParser

extension GetCommand {
    /// The "Downloading" section of `fdl get --help`: what to download and how a download goes: the URLs of a file, checks, retries, limits of time and size, and where the work happens.
    public struct DownloadingOptions: ParsableArguments {
        @Option(name: [.customShort("i"), .customLong("input-file")], help: ArgumentHelp(
            "Read URLs from FILE (- for standard input): one file a line, mirrors separated by TAB, indented out=NAME "
            + "and checksum=sha-256=HEX lines below a URL, # comments (see docs/cli.md).", valueName: "FILE"))
        public var inputFile: String?

        @Option(name: .customLong("sha256"), help: ArgumentHelp(
            "Expected SHA-256 (64 hex digits); give it once per URL, in the same order.", valueName: "HEX"))
        public var sha256: [String] = []

        @Option(name: .customLong("mirror"), help: ArgumentHelp(
            "Another URL of the same file, tried in turn when one fails (repeatable; with one URL, else use -i).", valueName: "URL"))
        public var mirrorURLs: [String] = []

        @Flag(name: [.customShort("c"), .customLong("continue")], help: ArgumentHelp(
            "Also continue a partial file fdl did not make (left by curl or wget) when the server shows it is the same "
            + "file (its Last-Modified is the file's time, or before the file was created); otherwise say why and download it under a new "
            + "name, keeping the file. fdl always continues its own downloads."))
        public var continueDownloads = false

        @Flag(name: [.customShort("N"), .customLong("timestamping")], help: "Check a completed file against the server and fetch it again only when it changed.")
        public var timestamping = false

        @Option(help: ArgumentHelp("Automatic retries of transient failures per download (0...\(GetCommand.retryRange.upperBound)).",
                                   valueName: "N"))
        public var retry: Int = 5

        @Option(name: .customLong("retry-wait"), help: ArgumentHelp(
            "Wait S seconds before the first retry, doubling for each further one (default 1).", valueName: "S"))
        public var retryWait: Double?

        @Option(name: .customLong("max-time"), help: ArgumentHelp(
            "Fail a download after S seconds in this run of downloading and of waiting to retry or for the network, "
            + "over all its attempts (bytes are kept).",
            valueName: "S"))
        public var maxTime: Double?

        @Option(name: .customLong("max-filesize"), help: ArgumentHelp(
            "Fail a download whose file is larger than SIZE bytes (K, M, G suffixes, 1024-based; 0: no limit): a larger "
            + "announced size before the body, a body without one at the limit. Not retried; nothing is kept.",
            valueName: "SIZE"))
        public var maxFileSize: String?

        @Option(name: .customLong("fresh-url-timeout"), help: ArgumentHelp(
            "When a server refuses a link that worked (401/403/410), wait up to S seconds for `fdl url ID NEWURL` "
            + "before failing (default: do not wait).", valueName: "S"))
        public var freshURLTimeout: Double?

        @Flag(name: [.customShort("R"), .customLong("remote-time")], help: ArgumentHelp(
            "Give each finished file the server's modification time (HTTP Last-Modified, FTP MDTM, SFTP mtime), "
            + "as curl -R and wget do."))
        public var remoteTime = false

        @Flag(name: .customLong("dry-run"), help: "Print what would be downloaded where, and change nothing.")
        public var dryRun = false

        @Flag(name: .customLong("spider"), help: ArgumentHelp(
            "Ask the server for each URL and download nothing: print each answer; exit 0 when every URL "
            + "answers 2xx, else the code the failed download would give."))
        public var spider = false

        @Flag(help: "Hand the downloads to your download agent (starting one if none runs) and return at once; same as `fdl add`.")
        public var background = false

        @Option(name: .customLong("socket"), help: ArgumentHelp(
            "With --background: the agent's socket (default $XDG_RUNTIME_DIR/fdl/agent.sock, else ~/.local/state/fdl/agent.sock).",
            valueName: "PATH"))
        public var socket: String?

        public init() {}
    }
}
