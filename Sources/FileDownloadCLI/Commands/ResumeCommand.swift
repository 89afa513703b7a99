public import ArgumentParser

/// `fdl resume ID`.
public struct ResumeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Continue a paused, interrupted or failed download (here, or in the running fdl; with --agent, in the download agent).")

    @Argument(help: "The download's id, as `fdl list` shows it.")
    public var id: String

    @OptionGroup public var state: StateOptions

    @OptionGroup public var agentOptions: AgentOptions

    public init() {}

    @Flag(help: "One JSON event per line when it runs here (see `fdl get --json`).")
    public var json = false

    public func run() async throws {
        if agentOptions.usesAgent {
            return try await ControlCommandRunner.performOnAgent(.resume, id: id, socketPath: agentOptions.socketPath)
        }
        guard let record = try await ControlCommandRunner.perform(.resume, id: id, state: state.state) else { return }
        let settings = GetSettings(urls: [], outputDirectory: state.url,
                                   output: json ? .json : (Terminal.isTerminal ? .terminal : .plain),
                                   stateDirectory: state.state.path)
        try await GetCommand.finish { try await GetSession(settings: settings).run(resuming: [record]) }
    }
}
