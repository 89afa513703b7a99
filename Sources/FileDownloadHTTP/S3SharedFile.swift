import Foundation

/// One of the AWS CLI's shared files (`~/.aws/credentials`, `~/.aws/config`): sections of
/// `name = value` lines. Comments start with `#` or `;`; indented lines (the nested settings of
/// `s3 =` and the like) are skipped; names are compared in lower case.
struct S3SharedFile: Sendable {
    /// The file's path.
    let path: String
    /// The settings per section title as written (`default`, `profile dev`, `dev`).
    let sections: [String: [String: String]]

    /// Reads the file at `path`; `nil` when it does not exist or cannot be read.
    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return nil
        }
        self.path = path
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            if let first = rawLine.first, first == " " || first == "\t" { continue }
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let title = line.dropFirst().dropLast().split(whereSeparator: \.isWhitespace).joined(separator: " ")
                current = title
                sections[title, default: [:]] = sections[title] ?? [:]
                continue
            }
            guard let section = current, let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[section, default: [:]][name] = value
        }
        self.sections = sections
    }

    /// The settings of profile `name`: in the config file its section is `[profile NAME]` (and
    /// `[default]` for the default profile), in the credentials file `[NAME]`.
    func profile(_ name: String, isConfig: Bool) -> [String: String]? {
        if isConfig {
            return sections["profile \(name)"] ?? (name == "default" ? sections["default"] : nil)
        }
        return sections[name]
    }
}
