public import ArgumentParser
import FileDownload
import FileDownloadAgentClient
import Foundation

/// `fdl url ID NEWURL`: points a download at a fresh URL (the answer to a `needsFreshURL` event,
/// or a move to another URL), sent to whoever holds the download: the running `fdl get` of DIR
/// over its socket, or, with `--agent`, the download agent (`PUT /v1/downloads/{id}/url`).
public struct URLCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Give a download a fresh URL (an expired link); its bytes continue when the new URL serves the same file.",
        discussion: """
            Asks the fdl running on DIR (or, with --agent, the download agent) to fetch ID from \
            NEWURL from now on. A download that waits for a fresh URL (event needsFreshURL, after \
            a 401/403/410 or before --expires-at) continues at once; any other goes on at NEWURL \
            (a running one restarts its attempt there, no retry used). The bytes on disk are kept \
            when NEWURL serves the same resource (same strong validator, or the same size), \
            otherwise the download starts again from zero.
            """)

    @Argument(help: "The download's id, as `fdl list` shows it.")
    public var id: String

    @Argument(help: ArgumentHelp("The URL to fetch from now on.", valueName: "NEWURL"))
    public var newURL: String

    @Option(name: .customLong("expires-at"), help: ArgumentHelp(
        "When NEWURL stops working, RFC 3339 (2026-11-23T06:00:00Z); a fresh one is asked for shortly before.",
        valueName: "DATE"))
    public var expiresAt: String?

    @OptionGroup public var state: StateOptions

    @OptionGroup public var agentOptions: AgentOptions

    public init() {}

    public func validate() throws {
        _ = try GetCommand.checked { try InputValidation.url(newURL) }
        if let expiresAt, AgentURLUpdate.parseDate(expiresAt) == nil {
            throw ValidationError("--expires-at '\(expiresAt)' is not an RFC 3339 date such as 2026-11-23T06:00:00Z")
        }
    }

    /// The parsed NEWURL and --expires-at (checked by ``validate()``).
    var update: (url: URL, expiresAt: Date?) {
        (URL(string: newURL)!, expiresAt.flatMap(AgentURLUpdate.parseDate))
    }

    public func run() async throws {
        let (url, expiry) = update
        let socketPath = agentOptions.usesAgent ? agentOptions.socketPath : state.state.socketPath
        let owner = agentOptions.usesAgent ? "the download agent at \(socketPath)" : "the fdl running on \(state.url.path)"
        do {
            let info = try await DownloadAgentClient(socketPath: socketPath).updateURL(id: id, to: url, expiresAt: expiry)
            Terminal.write("\(id): \(info.state.rawValue), fetching \(url.redactingPassword) (\(owner))\n")
        } catch let error as DownloadAgentClientError {
            if agentOptions.usesAgent { throw ControlCommandRunner.agentFailure(error, socketPath: socketPath) }
            switch error.status {
            case 0:
                throw ControlCommandRunner.fail(.stateUnavailable, "no fdl runs on \(state.url.path); a fresh URL goes to the run that "
                                                + "holds the download (start it again with the new URL, or use --agent)")
            case 404:
                throw ControlCommandRunner.fail(.usage, "\(owner) has no download '\(id)' in its run")
            default:
                throw ControlCommandRunner.fail(.failure, "\(owner) refused: \(error.message)")
            }
        }
    }
}
