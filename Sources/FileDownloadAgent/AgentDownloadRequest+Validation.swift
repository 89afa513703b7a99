import FileDownload
import FileDownloadAgentClient
import Foundation

/// The checks the agent makes of a request before the downloader makes its own (the id, the URL,
/// the destination's form, the mirrors, the digest, the size and the header fields); each failure is an
/// ``AgentAPIError`` (400) saying what to fix.
extension AgentDownloadRequest {
    /// The id, when it has 1 to 256 Unicode scalars (code points, as JSON Schema's `maxLength`
    /// counts them, not characters: a combining mark does not hide a long id) and none of them is
    /// `/`, a line break or NUL (each scalar is checked, so none hides in a grapheme either).
    func validatedID() throws -> String {
        let scalars = id.unicodeScalars
        guard !scalars.isEmpty, scalars.count <= 256, !scalars.contains(where: Self.isRefusedInID) else {
            throw AgentAPIError(.badRequest, "bad-id", "\"id\" must be 1 to 256 characters without \"/\", line breaks or NUL")
        }
        return id
    }

    /// `/`, NUL and the scalars `Character.isNewline` knows (LF, VT, FF, CR, NEL, LS, PS).
    private static func isRefusedInID(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2F, 0x00, 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }

    func parsedURL() throws -> URL {
        guard let parsed = URL(string: url), parsed.scheme != nil else {
            throw AgentAPIError(.badRequest, "bad-url", "\"\(url)\" is not an absolute URL (like https://host/file)")
        }
        return parsed
    }

    /// The mirrors as URLs: each absolute, at most ``AgentDownloadRequest/maxMirrors``. (The
    /// downloader checks their schemes when it tries them.)
    func parsedMirrors() throws -> [URL] {
        let mirrors = self.mirrors ?? []
        guard mirrors.count <= Self.maxMirrors else {
            throw AgentAPIError(.badRequest, "bad-mirror", "\(mirrors.count) mirrors given; a download may have at most \(Self.maxMirrors)")
        }
        return try mirrors.map { text in
            guard let parsed = URL(string: text), parsed.scheme != nil, parsed.host != nil else {
                throw AgentAPIError(.badRequest, "bad-mirror",
                                    "the mirror \"\(URL(string: text)?.removingCredentials.absoluteString ?? "(not a URL)")\" is not an absolute URL (like https://host/file)")
            }
            return parsed
        }
    }

    /// The destination as a file URL, or `nil` when none was given. The downloader then checks it
    /// as it checks every destination (``FileDownload/DownloadPaths``).
    func parsedDestination() throws -> URL? {
        guard let destination else { return nil }
        guard destination.hasPrefix("/"), !destination.contains("\0") else {
            throw AgentAPIError(.badRequest, "bad-destination",
                                "the destination \"\(destination)\" is not an absolute path; give the full path of the file")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AgentAPIError(.badRequest, "bad-destination",
                                "the destination \"\(destination)\" is a directory; give the path of the file to create in it")
        }
        return URL(fileURLWithPath: destination, isDirectory: false)
    }

    /// The download's options: what the request sets, nothing else (the downloader fills in its
    /// default transfer options for the rest).
    func options() throws -> DownloadOptions {
        if let sha256, sha256.count != 64 || !sha256.allSatisfy(\.isHexDigit) {
            throw AgentAPIError(.badRequest, "bad-sha256", "\"sha256\" must be 64 hexadecimal digits")
        }
        if let expectedSize, expectedSize < 0 {
            throw AgentAPIError(.badRequest, "bad-size", "\"expectedSize\" cannot be negative")
        }
        if let maxConnections, !(1...Self.maxConnectionsLimit).contains(maxConnections) {
            throw AgentAPIError(.badRequest, "bad-connections",
                                "\"maxConnections\" must be between 1 and \(Self.maxConnectionsLimit)")
        }
        // Only what the request sets: the downloader lays it over its defaults
        // (`DownloadOptions.resolved(with:)`), header fields of the same name replacing the default's.
        var transfer = TransferOptions()
        let secrets = Set((secretHeaders ?? []).map { $0.lowercased() })
        for (name, value) in (headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, !name.contains(where: { $0 == ":" || $0.isWhitespace || $0.isNewline }),
                  !value.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw AgentAPIError(.badRequest, "bad-header", "the header field \"\(name)\" is not a valid field name and value")
            }
            transfer.headers.append(HeaderField(name: name, value: value, isSecret: secrets.contains(name.lowercased())))
        }
        return DownloadOptions(transfer: transfer, expectedSize: expectedSize, sha256: sha256, priority: priority ?? 0,
                               mirrors: try parsedMirrors(), maxConnections: maxConnections)
    }
}
