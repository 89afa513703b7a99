public import ArgumentParser

/// `fdl pause ID`.
public struct PauseCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a download; its bytes are kept (asks the running fdl, if any).")

    @Argument(help: "The download's id, as `fdl list` shows it.")
    public var id: String

    @OptionGroup public var state: StateOptions

    public init() {}

    public func run() async throws {
        _ = try await ControlCommandRunner.perform(.pause, id: id, state: state.state)
    }
}
