import FileDownload
import FileDownloadAgentClient
import Foundation

/// The checks the agent makes of a request before the downloader makes its own (the id, the URL,
/// the destination's form, the mirrors, the digest, the size and the header fields); each failure is an
/// ``AgentAPIError`` (400) saying what to fix. The id, URLs, header fields and digest are checked
/// with `InputValidation`, the rules and messages of every front end.
extension AgentDownloadRequest {
    /// The id, when it passes `InputValidation.checkIdentifier(_:)` (1 to 256 Unicode scalars
    /// without control characters or line breaks: the rule of every front end) and has no `/`
    /// (the agent's own rule: an id is one segment of the API's paths).
    func validatedID() throws -> String {
        try Self.checked { try InputValidation.checkIdentifier(id) }
        guard !id.contains("/") else {
            throw AgentAPIError(.badRequest, .badID, "an id of the agent cannot contain \"/\" (it is a segment of the API's paths)")
        }
        return id
    }

    /// The URL, when it passes `InputValidation.url(_:)`.
    func parsedURL() throws -> URL {
        try Self.checked { try InputValidation.url(url) }
    }

    /// The mirrors as URLs: each passes `InputValidation.url(_:)`, at most
    /// ``AgentDownloadRequest/maxMirrors``. (The downloader checks their schemes when it tries
    /// them.)
    func parsedMirrors() throws -> [URL] {
        let mirrors = self.mirrors ?? []
        guard mirrors.count <= Self.maxMirrors else {
            throw AgentAPIError(.badRequest, .badMirror, "\(mirrors.count) mirrors given; a download may have at most \(Self.maxMirrors)")
        }
        return try mirrors.map { text in
            do {
                return try InputValidation.url(text)
            } catch let error as DownloadError {
                throw AgentAPIError(.badRequest, .badMirror, "a mirror: \(error.message)")
            }
        }
    }

    /// Runs a check of `InputValidation`, turning its error into the agent's 400 with the same
    /// message (`AgentAPIError.init(_:)`).
    static func checked<T>(_ check: () throws -> T) throws -> T {
        do {
            return try check()
        } catch let error as DownloadError {
            throw AgentAPIError(error)
        }
    }

    /// The destination as a file URL, or `nil` when none was given. The downloader then checks it
    /// as it checks every destination (``FileDownload/DownloadPaths``).
    func parsedDestination() throws -> URL? {
        guard let destination else { return nil }
        guard destination.hasPrefix("/"), !destination.contains("\0") else {
            throw AgentAPIError(.badRequest, .badDestination,
                                "the destination \"\(destination)\" is not an absolute path; give the full path of the file")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AgentAPIError(.badRequest, .badDestination,
                                "the destination \"\(destination)\" is a directory; give the path of the file to create in it")
        }
        return URL(fileURLWithPath: destination, isDirectory: false)
    }

    /// The download's options: what the request sets, nothing else (the downloader fills in its
    /// default transfer options for the rest).
    func options() throws -> DownloadOptions {
        if let sha256 { _ = try Self.checked { try InputValidation.sha256(sha256) } }
        if let expectedSize, expectedSize < 0 {
            throw AgentAPIError(.badRequest, .badSize, "\"expectedSize\" cannot be negative")
        }
        if let maxConnections, !(1...Self.maxConnectionsLimit).contains(maxConnections) {
            throw AgentAPIError(.badRequest, .badConnections,
                                "\"maxConnections\" must be between 1 and \(Self.maxConnectionsLimit)")
        }
        // Only what the request sets: the downloader lays it over its defaults
        // (`DownloadOptions.resolved(with:)`), header fields of the same name replacing the default's.
        var transfer = TransferOptions()
        let secrets = Set((secretHeaders ?? []).map { $0.lowercased() })
        for (name, value) in (headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            transfer.headers.append(try Self.checked {
                try InputValidation.header(name: name, value: value, isSecret: secrets.contains(name.lowercased()))
            })
        }
        return DownloadOptions(transfer: transfer, expectedSize: expectedSize, sha256: sha256, priority: priority ?? 0,
                               mirrors: try parsedMirrors(), maxConnections: maxConnections)
    }
}
