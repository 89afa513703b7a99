public import ArgumentParser
import FileDownload
import FileDownloadPostgres
import Foundation
import Logging
import ServiceLifecycle

/// `fdl worker --postgres URL`: one worker of a fleet that shares a download queue in PostgreSQL.
public struct WorkerCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Claim downloads from a queue in PostgreSQL and download them, with other workers (docs/fleet.md).",
        discussion: """
            Connects to the queue (creating or migrating its table), prints "fdl worker: claiming \
            from USER@HOST:PORT/DB" on standard output, then claims downloads (`fdl add --postgres`) \
            up to -j at a time, holding a lease it renews; each file goes to DIR plus the download's \
            destination. A worker that dies leaves its downloads to the others after --lease \
            seconds; with --shared-dir they continue from its checkpoint. SIGTERM or SIGINT stops \
            it cleanly: running downloads are paused and given back to the queue at once. The \
            password comes from --postgres-password-file or PGPASSWORD, never the URL.
            """)

    @OptionGroup public var postgres: PostgresOptions

    @Option(name: [.customShort("d"), .customLong("dir")], help: ArgumentHelp("Where the files go (default: the current directory; / is refused).", valueName: "DIR"))
    public var directory: String?

    @Flag(name: .customLong("shared-dir"), help: "DIR is storage every worker reaches at the same path: a download another worker left continues from its checkpoint.")
    public var sharedDirectory = false

    @Option(name: [.customShort("j"), .customLong("max-concurrent")], help: "How many downloads this worker holds and runs at once.")
    public var maxConcurrent: Int = 4

    @Option(name: .customLong("lease"), help: ArgumentHelp("How long a claim lasts without renewal, in seconds (renewed every quarter of it).", valueName: "S"))
    public var lease: Double = 30

    @Option(name: .customLong("node"), help: ArgumentHelp("This machine's name in the queue (default: the host name).", valueName: "NAME"))
    public var node: String?

    @Option(name: .customLong("poll"), help: ArgumentHelp("How long an idle worker waits before it looks for work again, in seconds.", valueName: "S"))
    public var poll: Double = 1

    public init() {}

    public func validate() throws {
        guard (1...1024).contains(maxConcurrent) else { throw ValidationError("--max-concurrent must be between 1 and 1024") }
        _ = try leaseDuration()
        _ = try pollDuration()
        if let node, node.isEmpty || node.contains("/") { throw ValidationError("--node must be a name without '/'") }
        if let directory, directory.isEmpty { throw ValidationError("--dir cannot be empty") }
    }

    private func leaseDuration() throws -> Duration { try GetCommand.duration(lease, option: "--lease", range: 1...86_400) }
    private func pollDuration() throws -> Duration { try GetCommand.duration(poll, option: "--poll", range: 0.01...3600) }

    public func run() async throws {
        let settings: PostgresQueueSettings
        let transports: TransportRegistry
        do {
            settings = try postgres.settings()
            transports = try TransportFactory.make(GetSettings(urls: [], outputDirectory: URL(fileURLWithPath: "/")))
        } catch let error as CLIError {
            Terminal.writeError("fdl worker: \(error.message)")
            throw ExitCode(error.status.rawValue)
        }
        var logger = Logger(label: "fdl.worker")
        logger.logLevel = .notice
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let directory = URL(fileURLWithPath: self.directory ?? ".", relativeTo: cwd).standardizedFileURL
        guard directory.path != "/" else {
            // Under systemd the current directory is `/`: never download into the root.
            Terminal.writeError("fdl worker: refusing to put downloads in / (give -d DIR)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let queue = PostgresDownloadQueue(settings: settings, logger: logger)
        try await stoppingOnQueueError(closing: queue) { try await queue.prepare() }
        let worker = FleetWorker(queue: queue, transports: transports, configuration: .init(
            node: node ?? ProcessInfo.processInfo.hostName, directory: directory, sharedDirectory: sharedDirectory,
            capacity: maxConcurrent, lease: try leaseDuration(), pollInterval: try pollDuration(),
            downloader: DownloaderConfiguration(logger: logger)), logger: logger)
        Terminal.write("fdl worker: claiming from \(settings.endpoint) as \(worker.owner)\n")
        let group = ServiceGroup(services: [WorkerService(worker: worker)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await stoppingOnQueueError(closing: queue) { try await group.run() }
        await queue.close()
        Terminal.write("fdl worker: stopped\n")
    }

    /// Runs `work`; a `DownloadError` (the queue cannot be reached or used) closes `queue`, is
    /// printed, and ends the command with ``ExitStatus/stateUnavailable``.
    private func stoppingOnQueueError(closing queue: PostgresDownloadQueue, _ work: () async throws -> Void) async throws {
        do {
            try await work()
        } catch let error as DownloadError {
            await queue.close()
            Terminal.writeError("fdl worker: \(error.message)")
            throw ExitCode(ExitStatus.stateUnavailable.rawValue)
        }
    }
}

/// Runs a ``FleetWorker`` in a service group: a graceful shutdown (SIGTERM, SIGINT) stops it.
struct WorkerService: Service {
    let worker: FleetWorker

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await worker.run()
        } onGracefulShutdown: {
            Task { await worker.stop() }
        }
    }
}
