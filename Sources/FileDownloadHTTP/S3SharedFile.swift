import FileDownload
import Foundation

/// One of the AWS CLI's shared files (`~/.aws/credentials`, `~/.aws/config`): sections of
/// `name = value` lines. Comments start with `#` or `;` at the start of a line, or after a space
/// or tab in a value (`region = us-east-1 # work`, as the AWS SDKs read it); indented lines (the
/// nested settings of `s3 =` and the like) are skipped; names are compared in lower case.
struct S3SharedFile: Sendable {
    /// The file's path.
    let path: String
    /// The settings per section title as written (`default`, `profile dev`, `dev`).
    let sections: [String: [String: String]]

    /// The most a shared file may hold.
    static let maxSize = 1 << 20

    /// Reads the file at `path` (a link is followed to a regular file); `nil` when it does not
    /// exist or cannot be opened.
    ///
    /// - Throws: `DownloadError.Code.authenticationFailed` (not retryable) when it is not a
    ///   regular file (`/dev/zero`, a FIFO, a directory: never waited on) or holds more than
    ///   ``maxSize`` bytes.
    init?(path: String) throws {
        guard let data = try Self.contents(of: path), let text = String(data: data, encoding: .utf8) else {
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
            let value = Self.uncommented(line[line.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
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

    /// `value` up to a `#` or `;` that follows a space or a tab (an inline comment).
    static func uncommented(_ value: Substring) -> Substring {
        var previous: Character = " "
        for index in value.indices {
            let character = value[index]
            if (character == "#" || character == ";") && index != value.startIndex && (previous == " " || previous == "\t") {
                return value[..<index]
            }
            previous = character
        }
        return value
    }

    /// Whether `status` is that of `/dev/null` (the AWS tools' way to turn a shared file off,
    /// `AWS_CONFIG_FILE=/dev/null`): read as an empty file.
    private static func isNullDevice(_ status: stat) -> Bool {
        var null = stat()
        guard (status.st_mode & S_IFMT) == S_IFCHR, stat("/dev/null", &null) == 0 else { return false }
        return (null.st_mode & S_IFMT) == S_IFCHR && null.st_rdev == status.st_rdev
    }

    /// The bytes of the regular file at `path` (or none for `/dev/null`), opened without blocking
    /// (a FIFO is not waited on) and checked on the opened descriptor; `nil` when it cannot be opened.
    private static func contents(of path: String) throws -> Data? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        if Self.isNullDevice(status) { return Data() }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw DownloadError(.authenticationFailed, "the AWS shared file \(path) is not a regular file", isRetryable: false)
        }
        guard status.st_size <= maxSize else {
            throw DownloadError(.authenticationFailed, "the AWS shared file \(path) is larger than \(maxSize) bytes", isRetryable: false)
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
            guard data.count <= maxSize else {
                throw DownloadError(.authenticationFailed, "the AWS shared file \(path) is larger than \(maxSize) bytes", isRetryable: false)
            }
        }
    }
}
