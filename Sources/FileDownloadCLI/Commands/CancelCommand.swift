public import ArgumentParser

/// `fdl cancel ID`.
public struct CancelCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel a download and delete its partial bytes (asks the running fdl, if any).")

    @Argument(help: "The download's id, as `fdl list` shows it.")
    public var id: String

    @OptionGroup public var state: StateOptions

    public init() {}

    public func run() async throws {
        _ = try await ControlCommandRunner.perform(.cancel, id: id, state: state.state)
    }
}
