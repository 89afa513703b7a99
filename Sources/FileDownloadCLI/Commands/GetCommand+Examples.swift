import ArgumentParser

extension GetCommand {
    /// The examples `fdl get --help` ends with: each a command line and what it does (short
    /// enough for 80 columns). Tests run every one through the unknown-option check, so they
    /// name only options `fdl get` has.
    static let examples: [(command: String, does: String)] = [
        ("fdl get https://example.org/big.iso",
         "Download big.iso here; after Ctrl-C the same command continues it."),
        ("fdl get -d ~/Downloads -j 8 -i urls.txt",
         "Every URL in urls.txt (-i - reads stdin), 8 at once, into ~/Downloads."),
        ("fdl get -x 4 --limit-rate 2M --sha256 HEX https://example.org/big.iso",
         "Four connections, at most 2 MiB/s, checked against its SHA-256."),
        ("fdl get -o notes.txt --user alice https://example.org/private/notes",
         "Save as notes.txt; alice's password is asked on the terminal."),
        ("fdl get --json https://example.org/a.iso | jq -c .",
         "One JSON event per line, for scripts."),
        ("fdl get -o - https://example.org/logs.tar | tar x",
         "The body to standard output as it arrives (no resume)."),
    ]

    /// The "EXAMPLES" section printed after the options of `fdl get --help`.
    static var examplesSection: String {
        "EXAMPLES:\n" + examples.map { "  \($0.command)\n        \($0.does)" }.joined(separator: "\n") + "\n"
    }

    /// Whether `arguments` (the process's, without the program name) ask for the help of
    /// `fdl get`: `fdl get ... --help` (or `-h`) before any `--`, or `fdl help get`.
    static func asksForHelp(_ arguments: [String]) -> Bool {
        if arguments.count >= 2, arguments[0] == "help", arguments[1] == "get" { return true }
        guard arguments.first == "get" else { return false }
        return arguments.dropFirst().prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
    }
}
