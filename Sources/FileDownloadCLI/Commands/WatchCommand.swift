public import ArgumentParser
import FileDownload
import FileDownloadAgentClient
import Foundation

/// `fdl watch [ID...]`: follows the events of a running `fdl get` on DIR (or, with `--agent`, of
/// the download agent) and prints them as `fdl get` prints its plain log (or JSON lines) until
/// the given downloads (or every download not yet finished when it started) are completed, failed
/// or cancelled. Ctrl-C ends it and changes nothing.
public struct WatchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow the downloads of the fdl running on DIR (or, with --agent, of the download agent) until they finish.",
        discussion: """
            Prints what happens to the downloads as `fdl get` prints its log (or one JSON event per \
            line with --json), starting with those already finished, and ends when every download \
            watched is completed, failed or cancelled: exit 0 when all completed, 1 when one failed, \
            3 when one was cancelled. Without IDs it watches every download not finished when it \
            starts. Ctrl-C ends it; the downloads go on.
            """)

    @Argument(help: "The downloads to watch (default: every one not finished yet).")
    public var ids: [String] = []

    @OptionGroup public var state: StateOptions

    @OptionGroup public var agentOptions: AgentOptions

    @Flag(help: "One JSON event per line (the events of `fdl get --json`).")
    public var json = false

    public init() {}

    public func run() async throws {
        let socketPath = agentOptions.usesAgent ? agentOptions.socketPath : state.state.socketPath
        var watcher = EventWatcher(client: DownloadAgentClient(socketPath: socketPath), ids: ids,
                                   printer: EventPrinter(mode: json ? .json : .plain),
                                   endsWithServer: !agentOptions.usesAgent)
        if !agentOptions.usesAgent {
            let state = state.state
            watcher.storedFinals = {
                var finals: [String: DownloadEvent] = [:]
                for r in try await state.loadRecords().all {
                    switch r.state {
                    case .completed: finals[r.id] = .completed(id: r.id, file: r.destination)
                    case .cancelled: finals[r.id] = .cancelled(id: r.id)
                    case .failed: finals[r.id] = .failed(id: r.id, error: DownloadError(.transport, r.errorMessages.first ?? "the download failed",
                                                                                        isRetryable: false), resumeData: nil)
                    default: break
                    }
                }
                return finals
            }
        }
        let status: ExitStatus
        do {
            status = try await watcher.run()
        } catch let error as DownloadAgentClientError {
            guard agentOptions.usesAgent || error.status != 0 else {
                throw ControlCommandRunner.fail(.stateUnavailable, "no fdl get runs on \(state.url.path) (nothing to watch); "
                                                + "`fdl list -d \(state.url.path)` shows its stored downloads, `fdl watch --agent` the agent's")
            }
            throw ControlCommandRunner.agentFailure(error, socketPath: socketPath)
        } catch let error as CLIError {
            throw ControlCommandRunner.fail(error.status, error.message)
        }
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
