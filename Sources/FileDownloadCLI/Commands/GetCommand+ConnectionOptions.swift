public import ArgumentParser

extension GetCommand {
    /// The "Connections" section of `fdl get --help`: how many downloads and connections at once, and how fast.
    public struct ConnectionOptions: ParsableArguments {
        @Option(name: [.short, .customLong("jobs")], help: "Downloads at once.")
        public var jobs: Int = 4

        @Option(name: [.customShort("x"), .customLong("max-connections")], help: ArgumentHelp(
            "Connections one download may use at once (1...\(GetCommand.maxConnectionsRange.upperBound); default: automatic, 2 doubling up to 16 "
            + "within --max-connections-per-host for files of 16 MiB and more from servers that take ranges; the next download to a server starts at what worked). 1: one connection per file.", valueName: "N"))
        public var maxConnections: Int?

        @Option(name: .customLong("max-connections-per-host"), help: ArgumentHelp(
            "Connections open at once to one server (scheme, host and port), over all downloads (1...\(GetCommand.connectionsPerHostRange.upperBound); default 8).",
            valueName: "N"))
        public var maxConnectionsPerHost: Int = 8

        @Option(name: .customLong("limit-rate"), help: ArgumentHelp(
            "Cap each download at RATE bytes/s; K, M, G suffixes (1024-based), e.g. 500K, 1.5M.", valueName: "RATE"))
        public var limitRate: String?

        @Option(name: .customLong("limit-rate-total"), help: ArgumentHelp(
            "Cap all downloads of this run together at RATE bytes/s (same RATE as --limit-rate; both may be given).",
            valueName: "RATE"))
        public var limitRateTotal: String?

        public init() {}
    }
}
