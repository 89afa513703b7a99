public import ArgumentParser
import FileDownloadAgent
import Foundation

/// `fdl ui`: prints the URL that opens the web page of the running agent.
public struct UICommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Print the URL that opens the download agent's web page.",
        discussion: """
            The agent must run with --tcp PORT. The URL, http://127.0.0.1:PORT/ui/#token=TOKEN, \
            carries the agent's token in its fragment, which a browser never sends to a server: \
            the page reads it, removes it from the address bar, keeps it in the tab and sends it \
            as a header with each of its requests (no cookie). Anyone who has the URL can drive \
            the agent, as its user: do not share it.
            """)

    @Option(name: .long, help: ArgumentHelp("The agent's state directory (default $XDG_STATE_HOME/fdl/agent, else ~/.local/state/fdl/agent).", valueName: "DIR"))
    public var state: String?

    public init() {}

    public func validate() throws {
        if let state, state.isEmpty { throw ValidationError("--state cannot be empty") }
    }

    public func run() throws {
        let directory = state.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
            ?? AgentPaths.defaultStateDirectory()
        do {
            let endpoint = try AgentWebEndpoint.running(stateDirectory: directory)
            Terminal.write(endpoint.loginURL + "\n")
        } catch let error as AgentStartError {
            Terminal.writeError("fdl ui: \(error.message)")
            throw ExitCode(ExitStatus.stateUnavailable.rawValue)
        }
    }
}
