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

    /// Options people type from curl, wget and aria2c habit that `fdl` spells differently or does
    /// not have, each with the `fdl` option it points to and the words that say what that option
    /// does (`nil`: "did you mean" that option). The pointer is given only on a command that has
    /// the option; the options `fdl` accepts as they are (`-P`, `-J`, `-nc`, ...) are declared,
    /// not listed here.
    static let habitPointers: [String: (option: String, text: String?)] = [
        "-u": ("--user", nil), "-H": ("--header", nil), "-A": ("--user-agent", nil), "-x": ("--proxy", nil),
        "-O": ("-o", "fdl saves under the URL's name by default (as curl -O); -o NAME names the file "
               + "(as wget -O NAME), -o - writes it to standard output"),
        "-s": ("-x", "-x N sets the connections one download may use (as aria2c -s N); -q prints nothing but "
               + "errors (as curl -s)"),
        "-t": ("--retry", Self.triesPointer), "--tries": ("--retry", Self.triesPointer),
        "--password": ("--user", Self.passwordPointer), "--http-password": ("--user", Self.passwordPointer),
        "--http-passwd": ("--user", Self.passwordPointer), "--http-user": ("--user", Self.passwordPointer),
    ]
    static let triesPointer = "--retry N sets the retries after the first attempt (wget -t 3 is --retry 2)"
    static let passwordPointer = "--user USER:PASS gives user and password (without :PASS the password is asked "
        + "on the terminal); --netrc reads them from ~/.netrc"
    /// What `fdl get -x` says when its value is not a number: curl's `-x` is a proxy, fdl's the
    /// connections of a download (as aria2c's). The value is not repeated: it may hold a password.
    static let proxyPointer = "-x N is the connections one download may use in fdl (as aria2c -x N), not a proxy; "
        + "give a proxy with --proxy URL (curl -x URL)"

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
            // A single-dash long name (`-nc`, a flag) is known as a whole.
            if !argument.hasPrefix("--"), argument.count > 2, known.contains(argument), !valued.contains(argument) { continue }
            let option = argument.hasPrefix("--") ? String(argument.prefix { $0 != "=" }) : String(argument.prefix(2))
            if known.contains(option) {
                guard valued.contains(option) else { continue }
                // The value: after `=`, attached (`-x4`), or the next argument.
                let attached = argument.hasPrefix("--") ? argument.split(separator: "=", maxSplits: 1).dropFirst().first
                    : argument.dropFirst(2).isEmpty ? nil : argument.dropFirst(2)
                let value = attached.map(String.init) ?? rest.popFirst()
                if option == "-x", known.contains("--proxy"), let value, Int(value) == nil { return proxyPointer }
                continue
            }
            if !argument.hasPrefix("--"), isShortCluster(argument, known: known, valued: valued) { continue }
            let pointer = habitPointers[option].flatMap { known.contains($0.option) ? $0 : nil }
            if let pointer, let text = pointer.text { return "unknown option '\(option)'; \(text)" }
            let suggestion = pointer?.option ?? nearest(to: option, among: known.filter { $0.hasPrefix("--") })
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
