public import ArgumentParser
import FileDownload
import FileDownloadAgent
import Foundation
import Logging
import ServiceLifecycle

/// `fdl agent`: runs the download agent in the foreground until SIGTERM or SIGINT.
public struct AgentCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run the download agent: downloads that go on when the programs that asked for them are gone.",
        discussion: """
            Serves the HTTP/JSON API of docs/agent-api.md on a Unix domain socket (mode 0600 in a \
            0700 directory; requests from other users are refused). Downloads are kept in \
            STATE/agent.sqlite: after a crash or SIGKILL, the next `fdl agent` continues them. \
            SIGTERM or SIGINT stops it cleanly (running downloads stop at their checkpoint). \
            Prints "fdl agent: listening on PATH" on standard output once it accepts connections.

            With --tcp PORT it also listens on 127.0.0.1:PORT (0: any free port) for browsers: the \
            same API and a web page under /ui/, every API request needing the token of \
            STATE/agent.token (0600, made on first use) as "Authorization: Bearer TOKEN" (no \
            cookie); it prints "fdl agent: web page on http://127.0.0.1:PORT/ui/" and writes the \
            port to STATE/agent.port. --open also prints the URL that opens the page, \
            http://127.0.0.1:PORT/ui/#token=TOKEN (the token in the fragment, which a browser never \
            sends to a server); `fdl ui` prints it later.
            """)

    @Option(name: .long, help: ArgumentHelp("The socket to listen on (default $XDG_RUNTIME_DIR/fdl/agent.sock, else ~/.local/state/fdl/agent.sock).", valueName: "PATH"))
    public var socket: String?

    @Option(name: .long, help: ArgumentHelp("The directory of the agent's store and lock (default $XDG_STATE_HOME/fdl/agent, else ~/.local/state/fdl/agent).", valueName: "DIR"))
    public var state: String?

    @Option(name: .long, help: ArgumentHelp("Where downloads without a destination go (default ~/Downloads).", valueName: "DIR"))
    public var downloads: String?

    @Option(name: .long, help: ArgumentHelp("Also listen on TCP at 127.0.0.1:PORT (0: any free port) for the web page and browsers; needs the token of STATE/agent.token.", valueName: "PORT"))
    public var tcp: Int?

    @Flag(name: .long, help: "With --tcp: print the URL that opens the web page (it carries the token; see also `fdl ui`).")
    public var open = false

    @Flag(name: .customLong("aria2-rpc"), help: "With --tcp: also serve aria2's JSON-RPC at /jsonrpc (HTTP and WebSocket) for aria2 front ends; the secret is the agent's token (token:TOKEN).")
    public var aria2RPC = false

    @Option(name: .long, help: "How many downloads run at once.")
    public var maxConcurrent: Int = 4

    @Option(name: .customLong("max-connections-per-host"), help: ArgumentHelp(
        "Connections open at once to one server (scheme, host and port), over all downloads (1...\(GetCommand.connectionsPerHostRange.upperBound); default 8).",
        valueName: "N"))
    public var maxConnectionsPerHost: Int = 8

    @Option(name: .long, help: "How many events the journal keeps for clients that reconnect.")
    public var journalCapacity: Int = 10_000

    @Option(name: .customLong("limit-rate-total"), help: ArgumentHelp(
        "Start with an overall limit of RATE bytes/s for all downloads together (as --limit-rate: 500K, 1.5M); "
        + "PUT /v1/limit and the web page change it.", valueName: "RATE"))
    public var limitRateTotal: String?

    @Option(name: .customLong("fresh-url-timeout"), help: ArgumentHelp(
        "How long a download whose link expired waits for a client's fresh URL (`fdl url`, PUT /v1/downloads/ID/url) "
        + "before it fails (default 600).", valueName: "S"))
    public var freshURLTimeout: Double = 600

    @OptionGroup(title: "Connections (timeouts and caps; see docs/security.md)")
    public var connections: AgentConnectionOptions

    @OptionGroup(title: "Completions (delivered until acknowledged; see docs/agent-api.md)")
    public var deliveries: AgentDeliveryOptions

    public init() {}

    public func validate() throws {
        guard (1...256).contains(maxConcurrent) else { throw ValidationError("--max-concurrent must be between 1 and 256") }
        try GetCommand.checkConnectionsPerHost(maxConnectionsPerHost)
        guard (1...10_000_000).contains(journalCapacity) else {
            throw ValidationError("--journal-capacity must be between 1 and 10000000")
        }
        if let limitRateTotal { _ = try ByteRate.option("--limit-rate-total", limitRateTotal) }
        _ = try GetCommand.duration(freshURLTimeout, option: "--fresh-url-timeout", range: GetCommand.freshURLTimeoutRange)
        if let tcp, !(0...65535).contains(tcp) { throw ValidationError("--tcp must be a port between 0 and 65535") }
        if open, tcp == nil { throw ValidationError("--open needs --tcp PORT (the page is served on TCP)") }
        if aria2RPC, tcp == nil { throw ValidationError("--aria2-rpc needs --tcp PORT (the RPC is served on TCP)") }
        for (name, value) in [("--socket", socket), ("--state", state), ("--downloads", downloads)] {
            if let value, value.isEmpty { throw ValidationError("\(name) cannot be empty") }
        }
    }

    public func run() async throws {
        let directory = FileManager.default.currentDirectoryPath
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory)).standardizedFileURL.path
        }
        let downloadsDirectory = absolute(downloads ?? (NSHomeDirectory() + "/Downloads"))
        var logger = Logger(label: "fdl.agent")
        logger.logLevel = .info
        var configuration = DownloadAgent.Configuration(
            socketPath: absolute(socket ?? AgentPaths.defaultSocket()),
            stateDirectory: absolute(state ?? AgentPaths.defaultStateDirectory()),
            downloader: DownloaderConfiguration(maxConcurrentDownloads: maxConcurrent,
                                                downloadsDirectory: URL(fileURLWithPath: downloadsDirectory),
                                                maxConnectionsPerHost: maxConnectionsPerHost,
                                                logger: logger))
        configuration.store = .init(journalCapacity: journalCapacity)
        configuration.tcpPort = tcp
        configuration.aria2RPC = aria2RPC
        configuration.connections = try connections.limits()
        configuration.deliveries = try deliveries.configuration()
        configuration.bandwidthLimit = try limitRateTotal.flatMap { try ByteRate.option("--limit-rate-total", $0) }
        configuration.freshURLTimeout = try GetCommand.duration(freshURLTimeout, option: "--fresh-url-timeout",
                                                                range: GetCommand.freshURLTimeoutRange)
        let open = self.open
        let agent = DownloadAgent(configuration: configuration, logger: logger, onWebListening: { endpoint in
            Terminal.write("fdl agent: web page on \(endpoint.pageURL)\n")
            if open { Terminal.write("fdl agent: open \(endpoint.loginURL)\n") }
        }) { path in
            Terminal.write("fdl agent: listening on \(path)\n")
        }
        let group = ServiceGroup(services: [agent], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        do {
            try await group.run()
        } catch let error as AgentStartError {
            Terminal.writeError("fdl agent: \(error.message)")
            throw ExitCode(ExitStatus.stateUnavailable.rawValue)
        } catch let error as DownloadError {
            Terminal.writeError("fdl agent: \(error.message)")
            throw ExitCode(ExitStatus.stateUnavailable.rawValue)
        } catch {
            Terminal.writeError("fdl agent: \(error)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        Terminal.write("fdl agent: stopped\n")
    }
}
