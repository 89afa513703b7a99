import FileDownload
import FileDownloadAgent
import FileDownloadSQLite
import Foundation
import Logging

/// The one control path of a running `fdl get`: the agent's API (`docs/agent-api.md`) served on
/// `StateDirectory/socketPath` over this run's `Downloader`, so `fdl pause|resume|cancel ID -d DIR`
/// and `fdl watch -d DIR` from another terminal reach it. The socket is 0600 in a 0700 directory,
/// and requests from another user are refused (403, logged on standard error).
extension GetSession {
    /// Starts serving and returns once the socket accepts connections (or serving failed, which
    /// is reported as a warning: the downloads run all the same, without control from outside).
    /// Cancelling the returned task stops serving and removes the socket.
    func startServing(_ downloader: Downloader, store: SQLiteDownloadStore) async -> Task<Void, Never> {
        let socketPath = state.socketPath
        var logger = settings.verbose ? StderrLogHandler.logger(label: "fdl.server") : Logger(label: "fdl.server") { StderrLogHandler(label: $0) }
        logger.logLevel = settings.verbose ? .debug : .warning
        let server = AgentServer(downloader: downloader, store: store, socketPath: socketPath,
                                 defaultTransfer: settings.transferOptions, logger: logger)
        let (listening, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            do {
                try AgentPaths.makePrivateDirectory((socketPath as NSString).deletingLastPathComponent)
                try await server.run { _ in signal.yield() }
            } catch is CancellationError {
            } catch {
                let reason = (error as? AgentStartError)?.message ?? "\(error)"
                Terminal.writeError("fdl: cannot serve \(socketPath) (\(reason)); "
                                    + "`fdl pause|resume|cancel` from another terminal will not reach this run")
            }
            signal.finish()
        }
        for await _ in listening { break }
        return task
    }
}
