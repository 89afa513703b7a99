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
            """)

    @Option(name: .long, help: ArgumentHelp("The socket to listen on (default $XDG_RUNTIME_DIR/fdl/agent.sock, else ~/.local/state/fdl/agent.sock).", valueName: "PATH"))
    public var socket: String?

    @Option(name: .long, help: ArgumentHelp("The directory of the agent's store and lock (default $XDG_STATE_HOME/fdl/agent, else ~/.local/state/fdl/agent).", valueName: "DIR"))
    public var state: String?

    @Option(name: .long, help: ArgumentHelp("Where downloads without a destination go (default ~/Downloads).", valueName: "DIR"))
    public var downloads: String?

    @Option(name: .long, help: "How many downloads run at once.")
    public var maxConcurrent: Int = 4

    @Option(name: .long, help: "How many events the journal keeps for clients that reconnect.")
    public var journalCapacity: Int = 10_000

    public init() {}

    public func validate() throws {
        guard (1...256).contains(maxConcurrent) else { throw ValidationError("--max-concurrent must be between 1 and 256") }
        guard (1...10_000_000).contains(journalCapacity) else {
            throw ValidationError("--journal-capacity must be between 1 and 10000000")
        }
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
                                                logger: logger))
        configuration.store = .init(journalCapacity: journalCapacity)
        let agent = DownloadAgent(configuration: configuration, logger: logger) { path in
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
