import Foundation

/// The JSON form of a download's description, as the agent's API lists it: `id`, `url` (without
/// its password, as ``DownloadInfo/url`` always is), `destination` (a file path), `state`,
/// `progress`, `lastError`?, `lastErrorCode`?, `attempts`, `checks`? (the names of the
/// ``CompletionChecks`` that confirmed a completed file: `announcedLength`, `expectedSize`,
/// `sha256`, `serverDigest`), `mirrors`? (their URLs without passwords; left out when there are none), and
/// `waitReason`? (`insufficientSpace`, `waitingForNetwork` or `refreshingURL`).
extension DownloadInfo: Codable {
    private enum Key: String, CodingKey {
        case id, url, destination, state, progress, lastError, lastErrorCode, attempts, checks, mirrors, waitReason
    }

    private static let checkNames: [(String, CompletionChecks)] = [
        ("announcedLength", .announcedLength), ("expectedSize", .expectedSize), ("sha256", .sha256),
        ("serverDigest", .serverDigest),
    ]

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(id, forKey: .id)
        try c.encode(url.absoluteString, forKey: .url)
        try c.encode(destination.path, forKey: .destination)
        try c.encode(state, forKey: .state)
        try c.encode(progress, forKey: .progress)
        try c.encodeIfPresent(lastError, forKey: .lastError)
        try c.encodeIfPresent(lastErrorCode, forKey: .lastErrorCode)
        try c.encode(attempts, forKey: .attempts)
        if let checks {
            try c.encode(Self.checkNames.filter { checks.contains($0.1) }.map(\.0), forKey: .checks)
        }
        if !mirrors.isEmpty { try c.encode(mirrors.map(\.absoluteString), forKey: .mirrors) }
        try c.encodeIfPresent(waitReason, forKey: .waitReason)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let urlText = try c.decode(String.self, forKey: .url)
        guard let url = URL(string: urlText) else {
            throw DecodingError.dataCorruptedError(forKey: .url, in: c, debugDescription: "\"\(urlText)\" is not a URL")
        }
        let checks = try c.decodeIfPresent([String].self, forKey: .checks).map { names in
            CompletionChecks(Self.checkNames.filter { names.contains($0.0) }.map(\.1))
        }
        let mirrors = try (c.decodeIfPresent([String].self, forKey: .mirrors) ?? []).map { text in
            guard let mirror = URL(string: text) else {
                throw DecodingError.dataCorruptedError(forKey: .mirrors, in: c, debugDescription: "\"\(text)\" is not a URL")
            }
            return mirror
        }
        self.init(id: try c.decode(String.self, forKey: .id), url: url,
                  destination: URL(fileURLWithPath: try c.decode(String.self, forKey: .destination)),
                  state: try c.decode(DownloadState.self, forKey: .state),
                  progress: try c.decode(DownloadProgress.self, forKey: .progress),
                  lastError: try c.decodeIfPresent(String.self, forKey: .lastError),
                  lastErrorCode: try c.decodeIfPresent(DownloadError.Code.self, forKey: .lastErrorCode),
                  attempts: try c.decode(Int.self, forKey: .attempts), checks: checks, mirrors: mirrors,
                  waitReason: try c.decodeIfPresent(WaitReason.self, forKey: .waitReason))
    }
}
