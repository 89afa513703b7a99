public import ArgumentParser

/// `fdl get --on-complete CMD`: a command run once for each file the run completes (see
/// `GetSession`'s `runOnComplete(id:file:)`; docs/cli.md).
public struct OnCompleteOption: ParsableArguments {
    @Option(name: .customLong("on-complete"), help: ArgumentHelp(
        "Run CMD (/bin/sh -c) once for each file this run completes, with FDL_ID, FDL_PATH, FDL_SIZE, FDL_SHA256 "
        + "and FDL_STATE in its environment; a failure is reported, the exit status stays the downloads'.",
        valueName: "CMD"))
    public var command: String?

    public init() {}

    public func validate() throws {
        if let command, command.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--on-complete cannot be empty")
        }
    }
}
