import ArgumentParser

/// Finds an unknown option on an `fdl` subcommand's command line before the argument parser
/// sees it, so that `fdl get URL --limit-rte 1M` says "unknown option '--limit-rte'; did you mean
/// '--limit-rate'?" instead of taking `1M` for a URL. The message names the option only, never
/// its value (`-ualice:s3cret` is reported as `-u`, with `--user` suggested).
///
/// The options known are those the subcommand's help lists (one source of truth: the
/// declarations); an option listed with a value (`--jobs <j>`) consumes the next argument, as in
/// the parser. `--` ends the options.
enum UnknownOptionCheck {
    /// Options every command accepts although its help may not list them.
    static let alwaysKnown: Set<String> = ["-h", "--help", "--version", "--generate-completion-script",
                                           "--experimental-dump-help"]

    /// Short options of curl and wget that `fdl` spells long.
    static let shortHabits: [String: String] = ["-u": "--user", "-H": "--header", "-A": "--user-agent", "-x": "--proxy"]

    /// The message for the first unknown option in `arguments` (the process's arguments without
    /// the program name), or `nil` when there is none or the first argument names no subcommand
    /// (the parser then reports it).
    static func mistake(in arguments: [String]) -> String? {
        guard let name = arguments.first,
              let command = FDL.configuration.subcommands.first(where: { $0.configuration.commandName == name })
        else { return nil }
        // `fdl add` takes the options of `fdl get` (it passes them through), or with `--postgres`
        // those of a fleet's queue.
        var checked: any ParsableCommand.Type = command
        if command == AddCommand.self {
            checked = arguments.contains(where: AddCommand.isPostgres) ? FleetAddCommand.self : GetCommand.self
        }
        let (known, valued) = options(of: checked)
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            if argument == "--" { break }
            guard argument.hasPrefix("-"), argument.count > 1 else { continue }
            // Only the name is echoed: a long option up to `=`, a short one as its dash and letter
            // (`-ualice:s3cret` is `-u`; the rest may be a password).
            let option = argument.hasPrefix("--") ? String(argument.prefix { $0 != "=" }) : String(argument.prefix(2))
            if known.contains(option) {
                if valued.contains(option), !argument.contains("=") { _ = rest.popFirst() }
                continue
            }
            if !argument.hasPrefix("--"), isShortCluster(argument, known: known, valued: valued) { continue }
            let suggestion = shortHabits[option].flatMap { known.contains($0) ? $0 : nil }
                ?? nearest(to: option, among: known.filter { $0.hasPrefix("--") })
            return "unknown option '\(option)'; "
                + (suggestion.map { "did you mean '\($0)'?" } ?? "see `fdl \(name) --help` for the options")
        }
        return nil
    }

    /// `-qv` (known flags together) or `-j4` (a known option with its value attached).
    static func isShortCluster(_ argument: String, known: Set<String>, valued: Set<String>) -> Bool {
        let letters = argument.dropFirst().map { "-\($0)" }
        if let first = letters.first, valued.contains(first), known.contains(first) { return true }
        return letters.allSatisfy { known.contains($0) && !valued.contains($0) }
    }

    /// The option names of `command` and those that take a value, read from its help.
    static func options(of command: any ParsableCommand.Type) -> (known: Set<String>, valued: Set<String>) {
        var known = alwaysKnown, valued = Set<String>()
        // FleetAddCommand is reached through AddCommand, not a subcommand of FDL of its own.
        let help = command == FleetAddCommand.self ? FleetAddCommand.helpMessage(columns: 10_000)
            : FDL.helpMessage(for: command, columns: 10_000)
        for line in help.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("-") else { continue }
            // "-j, --jobs <j>   Downloads at once." : the names, up to the first two spaces.
            let head = trimmed.components(separatedBy: "  ")[0]
            let names = head.split(whereSeparator: { $0 == "," || $0 == " " })
                .map(String.init).filter { $0.hasPrefix("-") && $0.count > 1 }
            known.formUnion(names)
            if head.contains("<") { valued.formUnion(names) }
        }
        return (known, valued)
    }

    /// The name closest to `option` by edit distance, when it is close enough to be a typo.
    static func nearest(to option: String, among names: Set<String>) -> String? {
        let scored = names.map { ($0, distance(option, $0)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best = scored.first, best.1 <= max(2, option.count / 3) else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
