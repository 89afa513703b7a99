public import FileDownload
import FileDownloadHTTP
import FileDownloadSFTP
public import FileDownloadSQLite
import Foundation
import Hummingbird
public import Logging
public import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// The download agent: a long-running service that owns one `Downloader` with an
/// `SQLiteDownloadStore` and serves the HTTP/1.1 + JSON API of
/// `docs/agent-api.md` on a Unix domain socket, so downloads go on when the apps that started
/// them are gone, and an app that comes back learns what it missed.
///
/// `fdl agent` runs one; an app can run its own inside its service:
///
/// ```swift
/// let agent = DownloadAgent(configuration: .init(socketPath: socket, stateDirectory: state))
/// let group = ServiceGroup(services: [agent], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// ``run()`` does, in order: makes the state directory and the socket's directory (mode 0700,
/// refusing ones of another user), takes the lock `STATE/agent.lock` (one agent per state
/// directory), removes a socket left by an agent that is gone (refusing to start when one still
/// listens), opens `STATE/agent.sqlite`, makes the downloader with
/// ``Configuration/bandwidthLimit`` as its overall limit, restores the downloads it holds (interrupted ones
/// continue), journals what the journal missed before the last stop (see `AgentEventLog`),
/// binds the socket, makes it 0600, calls `onListening` (with ``Configuration/tcpPort`` set: also
/// reads or makes the token `STATE/agent.token`, listens on 127.0.0.1, writes `STATE/agent.port`,
/// calls `onWebListening`), and serves until a graceful shutdown
/// (or cancellation). The downloader's delegate answers `freshURL` with the URL a client sends
/// with `PUT /v1/downloads/{id}/url` within ``Configuration/freshURLTimeout``, else `nil`.
/// Every request on the socket is checked with `SO_PEERCRED`: another user
/// gets a 403; every request on TCP needs the token (see `WebGuardMiddleware`).
///
/// On shutdown: the event streams end, the server stops, running downloads stop at their
/// checkpoint (`interrupted`, continued by the next ``run()``), the journal takes the last events,
/// and the store is closed. A SIGKILL at any moment loses nothing either: the store and the
/// journal are written before an event is sent to a client.
public final class DownloadAgent: Service, Sendable {
    /// Where the agent listens and keeps its state, and how its downloader works.
    public struct Configuration: Sendable {
        /// The Unix domain socket to listen on (default ``AgentPaths/defaultSocket(environment:)``).
        public var socketPath: String
        /// The directory of the store (`agent.sqlite`) and the lock (default
        /// ``AgentPaths/defaultStateDirectory(environment:)``).
        public var stateDirectory: String
        /// The downloader's configuration; its `downloadsDirectory` is where downloads without a
        /// destination go.
        public var downloader: DownloaderConfiguration
        /// The store's configuration, including the journal's capacity (default 10,000 events).
        public var store: SQLiteDownloadStore.Configuration
        /// When set, the agent also listens on TCP at 127.0.0.1 and this port (0: any free port),
        /// for browsers: the same API plus the web page under `/ui/`, every request needing the
        /// token of `STATE/agent.token` (see `docs/agent-api.md`, "TCP and the web page").
        /// `nil` (the default): the Unix socket only.
        public var tcpPort: Int?
        /// The overall limit the downloader starts with, in bytes per second for all downloads
        /// together (`Downloader.setBandwidthLimit(_:)`); `nil` (the default): none.
        /// `PUT /v1/limit` changes it while the agent runs; the next start begins with this value again.
        public var bandwidthLimit: Int64?
        /// How long a download whose URL was refused (401/403/410) or is about to expire waits for
        /// a client to send a fresh one with `PUT /v1/downloads/{id}/url` after the
        /// `needsFreshURL` event, before it goes on as without one (a refused download fails
        /// with the server's refusal). Default 10 minutes; it is also the downloader's
        /// `DownloaderConfiguration.freshURLTimeout` in the agent.
        public var freshURLTimeout: Duration = .seconds(600)
        /// The listeners' timeouts and connection caps (see ``AgentConnectionLimits``); the TCP
        /// listener's total cap follows from the descriptor limit, which ``DownloadAgent/run()`` first raises
        /// to the hard limit.
        public var connections = AgentConnectionLimits()
        /// With ``tcpPort`` set: also serve aria2's JSON-RPC at `/jsonrpc` on the TCP listener
        /// (HTTP `POST` and WebSocket, aria2's `token:TOKEN` with the agent's token; see
        /// `docs/agent-api.md`, "aria2 JSON-RPC"). Default `false`.
        public var aria2RPC = false
        /// Whom the agent tells of each completion and failure, and how (see
        /// ``DeliveryConfiguration``); what is not yet acknowledged is kept in
        /// ``deliveriesPath``. By default nobody, unless a download names its own (`"notify"`).
        public var deliveries = DeliveryConfiguration()

        public init(socketPath: String = AgentPaths.defaultSocket(),
                    stateDirectory: String = AgentPaths.defaultStateDirectory(),
                    downloader: DownloaderConfiguration = DownloaderConfiguration(),
                    store: SQLiteDownloadStore.Configuration = SQLiteDownloadStore.Configuration(),
                    tcpPort: Int? = nil) {
            self.socketPath = socketPath
            self.stateDirectory = stateDirectory
            self.downloader = downloader
            self.store = store
            self.tcpPort = tcpPort
        }

        /// The store's file: `STATE/agent.sqlite`.
        public var storePath: String { stateDirectory + "/agent.sqlite" }

        /// The deliveries not yet acknowledged and the dead letters: `STATE/deliveries.json`.
        public var deliveriesPath: String { stateDirectory + "/deliveries.json" }
    }

    public let configuration: Configuration
    private let transports: @Sendable () throws -> TransportRegistry
    private let logger: Logger
    private let onListening: @Sendable (String) async -> Void
    private let onWebListening: @Sendable (AgentWebEndpoint) async -> Void

    /// Makes an agent; nothing happens until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: where the agent listens and keeps its state, and its downloader's limits.
    ///   - transports: makes the transports when the agent starts; the default has HTTP(S)
    ///     (libcurl) and SFTP (libssh2) with their default (strict) configurations.
    ///   - logger: where the agent logs (refused peers, restore results); never secrets.
    ///   - onWebListening: with ``Configuration/tcpPort`` set, called with the port and token once
    ///     the TCP listener accepts connections and `STATE/agent.port` is written.
    ///   - onListening: called with the socket path once the socket accepts connections and has
    ///     mode 0600.
    public init(configuration: Configuration = Configuration(),
                transports: @escaping @Sendable () throws -> TransportRegistry = DownloadAgent.defaultTransports,
                logger: Logger = Logger(label: "fdl.agent"),
                onWebListening: @escaping @Sendable (AgentWebEndpoint) async -> Void = { _ in },
                onListening: @escaping @Sendable (String) async -> Void = { _ in }) {
        self.configuration = configuration
        self.transports = transports
        self.logger = logger
        self.onWebListening = onWebListening
        self.onListening = onListening
    }

    /// HTTP, HTTPS, FTP, FTPS and S3 on libcurl and SFTP on libssh2, as the library configures
    /// them by default (S3 with the agent's environment and `~/.aws` files).
    @Sendable
    public static func defaultTransports() throws -> TransportRegistry {
        var registry = TransportRegistry()
        registry.register(try HTTPTransport(), for: "http", "https")
        registry.register(SFTPTransport(), for: "sftp")
        registry.register(try FTPTransport(), for: "ftp", "ftps")
        registry.register(try S3Transport(), for: "s3")
        return registry
    }

    /// Runs the agent until a graceful shutdown or cancellation (see the type's description).
    ///
    /// - Throws: ``AgentStartError`` when a directory, the lock or the socket path is not usable;
    ///   the store's `DownloadError` when the store cannot be opened or read; the
    ///   server's error when the socket cannot be bound.
    public func run() async throws {
        let socketPath = configuration.socketPath
        let descriptors = DescriptorLimit.raiseToHard()
        let limits = configuration.connections
        if descriptors.limit != descriptors.before {
            logger.info("raised the limit of open descriptors from \(descriptors.before) to \(descriptors.limit)")
        }
        try AgentPaths.makePrivateDirectory(configuration.stateDirectory)
        let lock = try AgentLock(stateDirectory: configuration.stateDirectory)
        let token = try configuration.tcpPort.map { _ in try AgentToken.loadOrCreate(in: configuration.stateDirectory) }
        try AgentPaths.makePrivateDirectory((socketPath as NSString).deletingLastPathComponent)
        try AgentPaths.clearStaleSocket(at: socketPath)

        let store = try await SQLiteDownloadStore(path: configuration.storePath, configuration: configuration.store)
        let log = try await AgentEventLog(store: store)
        let refresher = AgentURLRefresher(timeout: configuration.freshURLTimeout)
        // The downloader's own bound on the question is the refresher's (its default is shorter).
        var downloaderConfiguration = configuration.downloader
        downloaderConfiguration.freshURLTimeout = configuration.freshURLTimeout
        // Destination names come from API clients: a link in the downloads directory is never
        // followed, whenever it was planted.
        downloaderConfiguration.followsExistingLinks = false
        let downloader = Downloader(configuration: downloaderConfiguration, transports: try transports(), store: store,
                                    delegate: refresher)
        await downloader.setBandwidthLimit(configuration.bandwidthLimit)
        let deliveries = try await AgentDeliveries(path: configuration.deliveriesPath, configuration: configuration.deliveries,
                                                   log: log, downloader: downloader, logger: logger)
        let feed = AgentEventFeed()
        downloader.observe { feed.post(.event($0)) }
        let pump = Task { [logger] in
            await Self.pump(feed, into: log, downloader: downloader, logger: logger) { await deliveries.scan() }
        }
        await deliveries.scan()

        let report = try await downloader.restore()
        await downloader.settle()
        feed.post(.reconcile(after: nil))
        logger.info("restored \(report.restored.count) downloads (\(report.resumed.count) continue) from \(configuration.storePath)")

        // Its own files are never a download's: a download at agent.sock left the agent unreachable,
        // one at agent.lock let a second agent start on the same state.
        let destinations = DestinationPolicy(stagingSuffix: downloaderConfiguration.stagingSuffix,
                                             reservedPaths: [socketPath, configuration.stateDirectory, configuration.storePath])
        let api = AgentAPI(downloader: downloader, log: log, refresher: refresher, destinations: destinations,
                           deliveries: deliveries)
        let app = Self.application(router: api.router(), socketPath: socketPath, logger: logger, limits: limits,
                                   onListening: onListening)
        var web: AgentWebServer?
        if let port = configuration.tcpPort, let token {
            let gate = ConnectionGate(listener: "TCP 127.0.0.1", total: limits.tcpConnections(descriptorLimit: descriptors.limit),
                                      perPeer: limits.tcpConnectionsPerPeer, logger: logger)
            logger.info("TCP listener: at most \(gate.total) connections, \(gate.perPeer) per peer (descriptor limit \(descriptors.limit); \(limits.socketConnections) kept for the socket, \(limits.reservedDescriptors) for the rest)")
            web = AgentWebServer(requestedPort: port, stateDirectory: configuration.stateDirectory, token: token, api: api,
                                 logger: logger, limits: limits, gate: gate, onListening: onWebListening,
                                 aria2RPC: configuration.aria2RPC)
        }
        do {
            try await withGracefulShutdownHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    group.addTask { try await app.run() }
                    if let web { group.addTask { try await web.run() } }
                }
            } onGracefulShutdown: {
                Task { await log.close() }
            }
        } catch {
            await log.close()
            await deliveries.close()
            await Self.stop(downloader, feed: feed, pump: pump, store: store, socketPath: socketPath)
            withExtendedLifetime(lock) {}
            throw error
        }
        await log.close()
        await deliveries.close()
        await Self.stop(downloader, feed: feed, pump: pump, store: store, socketPath: socketPath)
        withExtendedLifetime(lock) {}
    }

    /// The HTTP server on the Unix socket at `socketPath`: once it accepts connections, the socket
    /// is made 0600, then `onListening` is called. Its connections are held to the timeouts and
    /// the socket's caps of `limits`.
    static func application(router: Router<AgentRequestContext>, socketPath: String, logger: Logger,
                            limits: AgentConnectionLimits = AgentConnectionLimits(),
                            onListening: @escaping @Sendable (String) async -> Void) -> some ApplicationProtocol {
        let gate = ConnectionGate(listener: "socket \(socketPath)", total: limits.socketConnections,
                                  perPeer: limits.socketConnectionsPerPeer, logger: logger)
        return Application(
            router: router,
            server: GuardedHTTP1Channel.builder(limits: limits, gate: gate, transport: .unixSocket),
            configuration: ApplicationConfiguration(address: .unixDomainSocket(path: socketPath), serverName: nil),
            onServerRunning: { _ in
                if chmod(socketPath, 0o600) != 0 {
                    logger.error("cannot make the socket \(socketPath) private: \(String(cString: strerror(errno)))")
                }
                await onListening(socketPath)
            },
            logger: logger)
    }

    /// Journals what the downloader announces, batch by batch, until the feed ends. A
    /// `reconcile` item compares one page of the store with the journal and posts the next page
    /// behind what is queued, so a large store is compared while events keep being journalled.
    /// `journalled` is called after each batch was journalled (the deliveries look at it).
    static func pump(_ feed: AgentEventFeed, into log: AgentEventLog, downloader: Downloader, logger: Logger,
                     journalled: @Sendable () async -> Void = {}) async {
        while let items = await feed.next() {
            var events: [DownloadEvent] = []
            for item in items {
                switch item {
                case .event(let event):
                    events.append(event)
                case .reconcile(let after):
                    await record(events, into: log, logger: logger)
                    events.removeAll()
                    await comparePage(after: after, feed: feed, log: log, downloader: downloader, logger: logger)
                }
            }
            await record(events, into: log, logger: logger)
            await journalled()
        }
    }

    /// Compares the page of the store after `after` with the journal, having posted the next page
    /// first (behind what is queued).
    private static func comparePage(after: String?, feed: AgentEventFeed, log: AgentEventLog, downloader: Downloader,
                                    logger: Logger) async {
        do {
            let page = try await log.unannounced(after: after)
            if let next = page.resumeAfter { feed.post(.reconcile(after: next)) }
            var infos: [DownloadInfo] = []
            for id in page.ids {
                if let info = await downloader.info(of: id) { infos.append(info) }
            }
            try await log.reconcile(with: infos)
        } catch {
            // Not tried again here (a store that fails would fail again at once): the downloads
            // from there on are compared at the next start.
            logger.error("cannot compare the journal with the store after '\(after ?? "")' (the rest waits for the next start): \(error)")
        }
    }

    private static func record(_ events: [DownloadEvent], into log: AgentEventLog, logger: Logger) async {
        do {
            try await log.record(events)
        } catch {
            logger.error("cannot journal \(events.count) events: \(error)")
        }
    }

    private static func stop(_ downloader: Downloader, feed: AgentEventFeed, pump: Task<Void, Never>,
                             store: SQLiteDownloadStore, socketPath: String) async {
        await downloader.shutdown()
        feed.finish()
        await pump.value
        await store.close()
        unlink(socketPath)
    }
}
