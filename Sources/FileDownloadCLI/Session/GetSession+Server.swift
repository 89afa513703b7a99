import FileDownload
import FileDownloadAgent
import FileDownloadSQLite
import Foundation
import Logging
import ServiceLifecycle

/// The one control path of a running `fdl get`: the agent's API (`docs/agent-api.md`) served on
/// `StateDirectory/socketPath` over this run's `Downloader`, so `fdl pause|resume|cancel ID -d DIR`
/// and `fdl watch -d DIR` from another terminal reach it. The socket is 0600 in a 0700 directory,
/// and requests from another user are refused (403, logged on standard error).
extension GetSession {
    /// Starts serving and returns once the socket accepts connections (or serving failed, which
    /// is reported as a warning: the downloads run all the same, without control from outside).
    /// ``stopServing(_:)`` stops it. `refresher` (the delegate's, with `--fresh-url-timeout`) takes
    /// the URLs of `fdl url` for downloads that wait for one.
    func startServing(_ downloader: Downloader, store: SQLiteDownloadStore,
                      refresher: AgentURLRefresher?) async -> (ServiceGroup, Task<Void, Never>) {
        let socketPath = state.socketPath
        var logger = settings.verbose ? StderrLogHandler.logger(label: "fdl.server") : Logger(label: "fdl.server") { StderrLogHandler(label: $0) }
        // Not the lifecycle's debug messages under -v: they print the service's internal structures.
        logger.logLevel = settings.verbose ? .info : .warning
        let (listening, signal) = AsyncStream<Void>.makeStream()
        let server = AgentServer(downloader: downloader, store: store, socketPath: socketPath,
                                 logger: logger,
                                 refresher: refresher) { _ in signal.yield() }
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let task = Task {
            do {
                try AgentPaths.makePrivateDirectory((socketPath as NSString).deletingLastPathComponent)
                try await group.run()
            } catch is CancellationError {
            } catch {
                let reason = (error as? AgentStartError)?.message ?? "\(error)"
                Terminal.writeError("fdl: cannot serve \(socketPath) (\(reason)); "
                                    + "`fdl pause|resume|cancel` from another terminal will not reach this run")
            }
            signal.finish()
        }
        for await _ in listening { break }
        return (group, task)
    }

    /// Stops serving: requests in progress are answered first (a `fdl cancel` that ends the run
    /// gets its answer), event streams end, the socket is removed.
    func stopServing(_ server: (group: ServiceGroup, task: Task<Void, Never>)) async {
        await server.group.triggerGracefulShutdown()
        await server.task.value
    }
}
