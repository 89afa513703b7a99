public import ArgumentParser
import Foundation

/// The `fdl` command: downloads files over HTTP(S) and SFTP, resumable across runs.
public struct FDL: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fdl",
        abstract: "Download files over HTTP(S), FTP(S) and SFTP; re-run the same command to resume.",
        discussion: """
            State lives in DIR/.fdl (DIR is -d, default the current directory). Running the same \
            `fdl get` again after Ctrl-C or a crash continues from the bytes on disk, and starts \
            over only when the remote file changed.

            Exit codes:
            \(ExitStatus.allCases.map { "  \($0.rawValue)  \($0.summary)" }.joined(separator: "\n"))
            """,
        version: FDLVersion.text,
        subcommands: [GetCommand.self, AddCommand.self, ListCommand.self, WatchCommand.self, PauseCommand.self, ResumeCommand.self, CancelCommand.self, URLCommand.self, AgentCommand.self, UICommand.self, WorkerCommand.self]
    )

    public init() {}
}

extension FDL {
    /// Parses the process's arguments, runs the command and exits with its status. The whole of
    /// the `fdl` executable.
    public static func runAsMain() async {
        SignalMask.unblockTermination()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let mistake = UnknownOptionCheck.mistake(in: arguments) {
            Terminal.writeError("fdl: \(mistake)")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        if GetCommand.asksForHelp(arguments) {
            // argument-parser has no place for examples: they follow its help.
            Terminal.write(FDL.helpMessage(for: GetCommand.self) + "\n" + GetCommand.examplesSection)
            Foundation.exit(0)
        }
        let command: any AsyncParsableCommand.Type = FDL.self
        await command.main(arguments)
    }
}
