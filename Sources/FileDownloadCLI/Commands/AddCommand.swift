public import ArgumentParser

/// `fdl add URL...`: `fdl get --background URL...`, the background form.
public struct AddCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Hand downloads to your download agent (starting one if none runs) and return at once.",
        discussion: """
            Takes the arguments of `fdl get` (see `fdl get --help`); those the agent applies are \
            -d DIR, --name/-o, --sha256, --header, --header-secret, -U, --allow-overwrite, \
            -i FILE, --json, -q, and --socket PATH (the agent's socket). Options the agent cannot \
            take (credentials, proxies, rate limits, mirrors, SSH keys, ...) are refused. Prints \
            each download's id; `fdl watch --agent` follows them, `fdl list --agent` lists them.

            With --postgres URL it queues the downloads in a fleet's queue in PostgreSQL instead, \
            for `fdl worker` (see `fdl add --postgres URL --help` and docs/fleet.md).
            """)

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("URLs and options of `fdl get`.", valueName: "URL|OPTION"))
    public var arguments: [String] = []

    public init() {}

    /// `--postgres URL` queues in a fleet's queue instead (``FleetAddCommand``).
    static func isPostgres(_ argument: String) -> Bool {
        argument == "--postgres" || argument.hasPrefix("--postgres=")
    }

    public func run() async throws {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(arguments.contains(where: Self.isPostgres) ? FleetAddCommand.helpMessage() : Self.helpMessage())
            return
        }
        if arguments.contains(where: Self.isPostgres) {
            var fleet: FleetAddCommand
            do {
                fleet = try FleetAddCommand.parse(arguments)
            } catch {
                FleetAddCommand.exit(withError: error)
            }
            try await fleet.run()
            return
        }
        var get: GetCommand
        do {
            get = try GetCommand.parse(arguments + ["--background"])
        } catch {
            GetCommand.exit(withError: error)
        }
        try await get.run()
    }
}
