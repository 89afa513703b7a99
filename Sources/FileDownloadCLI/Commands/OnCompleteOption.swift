public import ArgumentParser

/// `fdl get --on-complete CMD`: a command run once for each file the run completes (see
/// `GetSession`'s `runOnComplete(id:file:)`; docs/cli.md).
public struct OnCompleteOption: ParsableArguments {
    @Option(name: .customLong("on-complete"), help: ArgumentHelp(
        "Run CMD (/bin/sh -c) once for each file this run completes, with FDL_ID, FDL_PATH, FDL_SIZE, FDL_SHA256 "
        + "and FDL_STATE in its environment; a failure is reported, the exit status stays the downloads'.",
        valueName: "CMD"))
    public var command: String?

    @Option(name: .customLong("on-complete-timeout"), help: ArgumentHelp(
        "The bound of one --on-complete run: longer, it is killed with its process group and reported (default 30, "
        + "as the agent's --delivery-timeout).", valueName: "S"))
    public var timeoutSeconds: Double = 30

    public init() {}

    public func validate() throws {
        if let command, command.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--on-complete cannot be empty")
        }
        _ = try timeout()
    }

    /// The bound of one run (`--on-complete-timeout`, 0.001 to 86400 seconds).
    func timeout() throws -> Duration {
        try GetCommand.duration(timeoutSeconds, option: "--on-complete-timeout", range: 0.001...86_400)
    }
}
