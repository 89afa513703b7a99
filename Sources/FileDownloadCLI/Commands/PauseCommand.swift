public import ArgumentParser

/// `fdl pause ID`.
public struct PauseCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a download; its bytes are kept (asks the running fdl, if any; with --agent, the download agent).")

    @Argument(help: "The download's id, as `fdl list` shows it.")
    public var id: String

    @OptionGroup public var state: StateOptions

    @OptionGroup public var agentOptions: AgentOptions

    public init() {}

    public func run() async throws {
        if agentOptions.usesAgent {
            return try await ControlCommandRunner.performOnAgent(.pause, id: id, socketPath: agentOptions.socketPath)
        }
        _ = try await ControlCommandRunner.perform(.pause, id: id, state: state.state)
    }
}
