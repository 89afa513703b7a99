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
            """)

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("URLs and options of `fdl get`.", valueName: "URL|OPTION"))
    public var arguments: [String] = []

    public init() {}

    public func run() async throws {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(Self.helpMessage())
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
