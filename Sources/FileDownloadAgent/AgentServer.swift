public import FileDownload
public import FileDownloadSQLite
import Foundation
import Hummingbird
public import Logging
public import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// The agent's API (`docs/agent-api.md`, version 1) served over a `Downloader` and store that
/// someone else owns: how a foreground `fdl get` lets `fdl pause|resume|cancel|watch` reach it.
///
/// ``run()`` does, in order: journals the downloader's events in `store` (the same journal as
/// `DownloadAgent`'s, so `Last-Event-ID` works the same), binds the Unix socket at `socketPath`
/// (whose directory the caller made private), makes it 0600, calls `onListening`, and serves —
/// every request checked with `SO_PEERCRED` (another user gets a 403) — until a graceful shutdown
/// of its `ServiceGroup` (requests in progress are answered first; event streams end) or the
/// cancellation of its task. Then the last events are journalled and the socket is removed. The
/// downloader and the store are left open: they are the caller's to shut down and close.
public struct AgentServer: Service, Sendable {
    public let downloader: Downloader
    public let store: SQLiteDownloadStore
    public let socketPath: String
    public let logger: Logger
    /// Takes the URLs of `PUT /v1/downloads/{id}/url` for downloads whose question to the
    /// downloader's delegate waits (the delegate asks it); `nil`: such a URL goes to
    /// `Downloader.updateURL(id:to:expiresAt:)` only.
    public let refresher: AgentURLRefresher?
    private let onListening: @Sendable (String) async -> Void

    /// A server; nothing happens until ``run()``. `onListening` is called with the socket path once
    /// the socket accepts connections and has mode 0600.
    public init(downloader: Downloader, store: SQLiteDownloadStore, socketPath: String,
                logger: Logger = Logger(label: "fdl.server"),
                refresher: AgentURLRefresher? = nil,
                onListening: @escaping @Sendable (String) async -> Void = { _ in }) {
        self.downloader = downloader
        self.store = store
        self.socketPath = socketPath
        self.logger = logger
        self.refresher = refresher
        self.onListening = onListening
    }

    /// Serves until a graceful shutdown or cancellation (see the type's description).
    ///
    /// - Throws: ``AgentStartError`` when another process listens on the socket or the path is
    ///   not a socket; the store's `DownloadError` when the journal cannot be read; the server's
    ///   error when the socket cannot be bound.
    public func run() async throws {
        try AgentPaths.clearStaleSocket(at: socketPath)
        let log = try await AgentEventLog(store: store)
        let feed = AgentEventFeed()
        downloader.observe { feed.post(.event($0)) }
        let pump = Task { [downloader, logger] in await DownloadAgent.pump(feed, into: log, downloader: downloader, logger: logger) }
        let api = AgentAPI(downloader: downloader, log: log, refresher: refresher,
                           destinations: DestinationPolicy(stagingSuffix: downloader.configuration.stagingSuffix,
                                                           reservedPaths: [socketPath]))
        let app = DownloadAgent.application(router: api.router(), socketPath: socketPath, logger: logger, onListening: onListening)
        let outcome: Result<Void, any Error>
        do {
            try await withGracefulShutdownHandler {
                try await withTaskCancellationHandler {
                    try await app.run()
                } onCancel: {
                    Task { await log.close() }
                }
            } onGracefulShutdown: {
                Task { await log.close() }
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await log.close()
        feed.finish()
        await pump.value
        unlink(socketPath)
        try outcome.get()
    }
}
