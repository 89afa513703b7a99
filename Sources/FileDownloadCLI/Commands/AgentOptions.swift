public import ArgumentParser
import FileDownloadAgentClient
import Foundation

/// `--agent` and `--socket PATH`: talk to the user's download agent instead of a directory's state.
///
/// Without them, `fdl list|pause|resume|cancel|watch` work on `-d DIR` (default the current
/// directory), as before the agent existed; a download is always found where it was started.
public struct AgentOptions: ParsableArguments {
    @Flag(name: .customLong("agent"), help: "Talk to your download agent (the downloads of `fdl add`), not to DIR's state.")
    public var agent = false

    @Option(name: .customLong("socket"), help: ArgumentHelp(
        "The agent's socket (default $XDG_RUNTIME_DIR/fdl/agent.sock, else ~/.local/state/fdl/agent.sock); implies --agent.",
        valueName: "PATH"))
    public var socket: String?

    public init() {}

    /// Whether the command talks to the agent.
    public var usesAgent: Bool { agent || socket != nil }

    /// The agent's socket, absolute.
    public var socketPath: String { Self.socketPath(socket) }

    /// `socket` made absolute, or the default socket (`AgentSocketPath.default()`) when `nil`.
    static func socketPath(_ socket: String?) -> String {
        socket.map { StateOptions.absolute($0).path } ?? AgentSocketPath.default()
    }

    public func validate() throws {
        if let socket, socket.isEmpty { throw ValidationError("--socket cannot be empty") }
    }
}
