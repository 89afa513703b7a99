import FileDownload
import Foundation

/// The URLs of an input file (`fdl get -i FILE`, `-i -` for standard input), in the spirit of
/// aria2c's `--input-file`:
///
/// ```
/// # a comment; blank lines are ignored
/// https://example.org/a.iso
/// https://one.example.org/b.iso<TAB>https://two.example.org/b.iso
///   out=b-mirror.iso
///   checksum=sha-256=9f86d0...
/// ```
///
/// - A line that does not start with white space holds one file's URLs: the first, then its
///   mirrors, separated by TABs (tried in turn, ``GetSettings/mirrors``).
/// - Lines below it that start with white space give options for that file, `NAME=VALUE`:
///   `out=NAME` (the file name in DIR, as `--name`) and `checksum=sha-256=HEX` (as `--sha256`;
///   `sha256=HEX` is accepted too). `dir=` is refused: the directory is one per run (`-d`),
///   because the state and the lock are per directory.
///
/// Pure: parsing does not touch the network or the file system. 2,000 lines parse in
/// milliseconds (one pass, no quadratic step).
public struct InputFile: Sendable {
    /// One file to download.
    public struct Entry: Sendable, Hashable {
        /// The URL and then its mirrors, as written.
        public var urls: [String]
        /// `out=`.
        public var name: String?
        /// `checksum=sha-256=`, lowercase.
        public var sha256: String?
        /// The line of the URL (1-based).
        public var line: Int
    }

    public var entries: [Entry]

    /// Parses `text`; `source` names it in messages (`FILE` or `standard input`).
    ///
    /// - Throws: ``CLIError`` (usage) whose message starts with `source:LINE:` and says what to fix.
    public init(parsing text: String, source: String) throws {
        var entries: [Entry] = []
        var lineNumber = 0
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            func fail(_ message: String) -> CLIError { CLIError(.usage, "\(source):\(lineNumber): \(message)") }
            if let first = line.first, first == " " || first == "\t" {
                guard !entries.isEmpty else { throw fail("an option line (indented) before any URL") }
                try Self.apply(option: trimmed, to: &entries[entries.count - 1], fail: fail)
            } else {
                let urls = line.split(separator: "\t").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                if let spaced = urls.first(where: { $0.contains(" ") }) {
                    throw fail("'\(InputValidation.redactingPassword(spaced))' contains a space; separate mirrors with a TAB, "
                                + "and write a space in a URL as %20")
                }
                entries.append(Entry(urls: urls, line: lineNumber))
            }
        }
        self.entries = entries
    }

    /// Reads `path` (`-` for standard input) and parses it.
    ///
    /// - Throws: ``CLIError`` (usage) when the file cannot be read or has an error.
    public static func load(_ path: String) throws -> InputFile {
        let source = path == "-" ? "standard input" : path
        // Read through a file handle, not FileManager.contents(atPath:), which returns nil for a
        // pipe or a device: `-i <(grep ... list)` and `-i /dev/stdin` are common.
        let data: Data
        do {
            let handle = path == "-" ? FileHandle.standardInput : try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            data = try handle.readToEnd() ?? Data()
        } catch {
            let reason = (error as NSError).userInfo[NSUnderlyingErrorKey].map { ": \(($0 as? NSError)?.localizedDescription ?? "\($0)")" } ?? ""
            throw CLIError(.usage, "cannot read the input file \(source)\(reason)")
        }
        return try InputFile(parsing: String(decoding: data, as: UTF8.self), source: source)
    }

    /// Applies one `NAME=VALUE` option line to `entry`.
    private static func apply(option: String, to entry: inout Entry, fail: (String) -> CLIError) throws {
        guard let equals = option.firstIndex(of: "=") else {
            throw fail("'\(option)' is not an option NAME=VALUE (options: out=, checksum=sha-256=)")
        }
        let name = option[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        let value = option[option.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        switch name {
        case "out":
            guard !value.isEmpty else { throw fail("out= needs a file name") }
            guard entry.name == nil else { throw fail("a second out= for the same URL") }
            entry.name = value
        case "checksum", "sha256", "sha-256":
            var digest = value
            if name == "checksum" {
                guard let split = value.firstIndex(of: "=") else {
                    throw fail("checksum= needs TYPE=DIGEST, e.g. checksum=sha-256=HEX")
                }
                do {
                    try InputValidation.checkChecksumType(String(value[..<split]))
                } catch {
                    throw fail(error.message)
                }
                digest = String(value[value.index(after: split)...])
            }
            let checked: String
            do {
                checked = try InputValidation.sha256(digest)
            } catch {
                throw fail(error.message)
            }
            guard entry.sha256 == nil else { throw fail("a second checksum for the same URL") }
            entry.sha256 = checked
        case "dir":
            throw fail("dir= is not supported: one fdl run downloads into one directory (-d DIR), "
                       + "which holds its state; run fdl once per directory")
        default:
            throw fail("unknown option '\(name)=' (options: out=NAME, checksum=sha-256=HEX)")
        }
    }
}
