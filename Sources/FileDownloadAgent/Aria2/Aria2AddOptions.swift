import FileDownload
import FileDownloadAgentClient
import Foundation

/// The options of `aria2.addUri` the agent understands, turned into the agent's own download
/// request (`AgentDownloadRequest`), which then goes through the checks of `POST /v1/downloads`:
///
/// - `dir` and `out`: the destination `DIR/OUT`; `out` is a relative path checked with
///   `DestinationPolicy.problem(withRelativePath:)`; without `out` the name comes from the URL
///   (`FileNameSanitizer`); without `dir` the agent's downloads directory.
/// - `split`: the most connections of the download (`maxConnections`).
/// - `checksum`: `sha-256=HEX` (other digests are refused).
/// - `max-download-limit`: the download's own limit in bytes per second (`K`, `M`: 1024-based;
///   `0`: none, not even the agent's default), `TransferOptions.maxBytesPerSecond`.
/// - `gid`: the download's GID, which becomes its id; `pause`: `true` adds it without starting.
/// - `header` (`Name: value` lines), `referer`, `user-agent`: request header fields.
///
/// Any other option is refused with an error naming it, so nothing a client asks for is silently
/// dropped.
struct Aria2AddOptions {
    static let supported: Set<String> = ["dir", "out", "split", "checksum", "max-download-limit", "gid", "pause",
                                         "header", "referer", "user-agent"]

    var dir: String?
    var out: String?
    var split: Int?
    var sha256: String?
    var maxBytesPerSecond: Int64?
    var gid: String?
    var pause = false
    var headers: [String: String] = [:]

    init(_ options: [String: Aria2JSON]) throws(Aria2Error) {
        for (name, value) in options.sorted(by: { $0.key < $1.key }) {
            guard Self.supported.contains(name) else {
                throw Aria2Error("the agent does not support the option \(name) (supported: \(Self.supported.sorted().joined(separator: ", ")))")
            }
            if name == "header" {
                try addHeaderLines(value)
                continue
            }
            guard let text = value.string ?? value.integer.map(String.init) else {
                throw Aria2Error("the option \(name) must be a string")
            }
            switch name {
            case "dir": dir = text
            case "out": out = text
            case "split":
                guard let count = Int(text) else { throw Aria2Error("split must be a whole number, not \(text)") }
                split = count
            case "checksum":
                guard let equals = text.firstIndex(of: "="), text[..<equals].lowercased() == "sha-256" else {
                    throw Aria2Error("checksum must be sha-256=HEX (the agent checks SHA-256 only), not \(text)")
                }
                sha256 = String(text[text.index(after: equals)...])
            case "max-download-limit":
                maxBytesPerSecond = try Aria2Rate.parse(text)
            case "gid":
                guard Aria2GID.isGID(text.lowercased()) else { throw Aria2Error("gid must be 16 hexadecimal digits, not \(text)") }
                gid = text.lowercased()
            case "pause":
                guard text == "true" || text == "false" else { throw Aria2Error("pause must be true or false, not \(text)") }
                pause = text == "true"
            case "referer": headers["Referer"] = text
            default: headers["User-Agent"] = text
            }
        }
    }

    /// `header`: one `Name: value` line or an array of them.
    private mutating func addHeaderLines(_ value: Aria2JSON) throws(Aria2Error) {
        var lines: [String] = []
        switch value {
        case .string(let line): lines = [line]
        case .array(let items): lines = items.compactMap(\.string)
        default: break
        }
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Aria2Error("header \(line) is not Name: value") }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// The agent's request for a download of `uris` (the first is the URL, the rest its mirrors)
    /// with id `id` and these options, the destination made of `dir` and `out` (the downloads
    /// directory `downloads` when there is no `dir`).
    func request(id: String, uris: [String], downloads: URL) throws -> AgentDownloadRequest {
        guard let url = uris.first else { throw Aria2Error("aria2.addUri needs at least one URI") }
        var destination: String?
        if let out, let problem = DestinationPolicy.problem(withRelativePath: out) {
            throw Aria2Error("out: \(problem)")
        }
        if dir != nil || out != nil {
            let directory = dir ?? downloads.path
            destination = try out.map { DestinationPolicy.proposedPath(in: directory, name: $0) }
                ?? DestinationPolicy.proposedPath(in: directory, for: InputValidation.url(url))
        }
        return AgentDownloadRequest(id: id, url: url, destination: destination, headers: headers.isEmpty ? nil : headers,
                                    sha256: sha256, mirrors: uris.count > 1 ? Array(uris.dropFirst()) : nil,
                                    maxConnections: split, start: !pause)
    }
}
