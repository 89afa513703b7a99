import Foundation

/// The entries of a `.netrc` file, as curl, wget and ftp read it: `machine NAME login USER
/// password PASS`, a `default` entry for every other host, `account` ignored and `macdef NAME`
/// skipped up to the next empty line. Tokens are separated by white space (new lines included);
/// a token in double quotes may contain spaces, and `\"` and `\\` inside it stand for `"` and `\`.
///
/// Held in memory only; its description never shows a password.
public struct Netrc: Sendable, CustomStringConvertible {
    /// One `machine` (or `default`) entry.
    public struct Entry: Sendable {
        /// The host; `nil` for the `default` entry.
        public var machine: String?
        public var login: String?
        public var password: String?
    }

    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses the text of a `.netrc` file.
    ///
    /// - Throws: ``CLIError`` (usage) naming `source` and the line when a keyword lacks its value
    ///   or a quoted token is not closed. Messages never contain a password.
    public init(parsing text: String, source: String) throws {
        var tokens = try Self.tokens(text, source: source)[...]
        var entries: [Entry] = []
        func value(after keyword: String, line: Int) throws -> String {
            guard let token = tokens.popFirst() else {
                throw CLIError(.usage, "\(source):\(line): '\(keyword)' needs a value")
            }
            return token.text
        }
        while let token = tokens.popFirst() {
            switch token.text {
            case "machine":
                entries.append(Entry(machine: try value(after: "machine", line: token.line)))
            case "default":
                entries.append(Entry(machine: nil))
            case "login", "password", "account":
                let text = try value(after: token.text, line: token.line)
                guard !entries.isEmpty else {
                    throw CLIError(.usage, "\(source):\(token.line): '\(token.text)' before any 'machine' or 'default'")
                }
                if token.text == "login" { entries[entries.count - 1].login = text }
                if token.text == "password" { entries[entries.count - 1].password = text }
            case "macdef":
                // A macro's body runs to the next empty line; tokens() already dropped it.
                _ = try value(after: "macdef", line: token.line)
            default:
                // Unknown words are skipped, as curl does.
                continue
            }
        }
        self.entries = entries
    }

    /// Reads and parses the file at `path`. Warns on standard error when others may read it
    /// (it holds passwords); it is used anyway, as curl and wget do.
    ///
    /// - Throws: ``CLIError`` (usage) when the file cannot be read or parsed.
    public static func load(path: String) throws -> Netrc {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(.usage, "cannot read the netrc file \(path)")
        }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            Terminal.writeError("fdl: warning: \(path) holds passwords and other users may read it; chmod 600 it")
        }
        return try Netrc(parsing: String(decoding: data, as: UTF8.self), source: path)
    }

    /// The login and password for `host`: the first `machine` entry of that name (with `user`,
    /// when given, as its login), else the `default` entry. `nil` when none has a login.
    public func login(for host: String, user: String? = nil) -> (user: String, password: String)? {
        let named = entries.first { entry in
            entry.machine?.lowercased() == host.lowercased() && (user == nil || entry.login == user)
        }
        guard let entry = named ?? entries.first(where: { $0.machine == nil }), let login = entry.login else { return nil }
        if let user, login != user { return nil }
        return (login, entry.password ?? "")
    }

    public var description: String {
        "netrc with \(entries.count) entries (passwords redacted)"
    }

    /// The file's tokens and their line numbers, without comments (`#` at the start of a
    /// token, to the end of the line) and macro bodies.
    private static func tokens(_ text: String, source: String) throws -> [(text: String, line: Int)] {
        var result: [(text: String, line: Int)] = []
        var skippingMacro = false
        for (offset, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = offset + 1
            if skippingMacro {
                if rawLine.allSatisfy(\.isWhitespace) { skippingMacro = false }
                continue
            }
            var characters = rawLine[...]
            while true {
                characters = characters.drop { $0.isWhitespace }
                guard let first = characters.first, first != "#" else { break }
                var token = ""
                if first == "\"" {
                    characters = characters.dropFirst()
                    var closed = false
                    while let c = characters.popFirst() {
                        if c == "\"" { closed = true; break }
                        if c == "\\", let next = characters.popFirst() { token.append(next) } else { token.append(c) }
                    }
                    guard closed else { throw CLIError(.usage, "\(source):\(line): a quoted value is not closed") }
                } else {
                    token = String(characters.prefix { !$0.isWhitespace })
                    characters = characters.dropFirst(token.count)
                }
                result.append((token, line))
                if result.count >= 2, result[result.count - 2].text == "macdef" { skippingMacro = true }
            }
        }
        return result
    }
}
