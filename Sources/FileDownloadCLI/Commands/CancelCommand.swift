public import ArgumentParser

/// `fdl cancel ID`.
public struct CancelCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel a download and delete its partial bytes (asks the running fdl, if any; with --agent, the download agent).")

    @Argument(help: "The download's id, as `fdl list` shows it.")
    public var id: String

    @OptionGroup public var state: StateOptions

    @OptionGroup public var agentOptions: AgentOptions

    public init() {}

    public func run() async throws {
        if agentOptions.usesAgent {
            return try await ControlCommandRunner.performOnAgent(.cancel, id: id, socketPath: agentOptions.socketPath)
        }
        _ = try await ControlCommandRunner.perform(.cancel, id: id, state: state.state)
    }
}
