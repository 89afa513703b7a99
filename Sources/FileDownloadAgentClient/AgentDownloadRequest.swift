public import FileDownload
public import Foundation

/// The body of `POST /v1/downloads`: what a client asks the agent to download.
///
/// ```json
/// {"id": "iso", "url": "https://example.com/x.iso", "destination": "/home/me/x.iso",
///  "headers": {"X-Api-Key": "..."}, "secretHeaders": ["X-Api-Key"], "sha256": "…",
///  "expectedSize": 123, "priority": 0, "mirrors": ["https://mirror.example.org/x.iso"],
///  "maxConnections": 4, "start": true}
/// ```
/// Only `id` and `url` are required. `destination` must be an absolute path (when absent: the
/// agent's downloads directory plus the URL's file name); `start: false` adds the download without
/// starting it. Header fields named in `secretHeaders` (and `Authorization`, `Cookie`,
/// `Proxy-Authorization` always) are kept in the agent's memory only, never stored or logged, and
/// are sent only to the origin (scheme, host, port) of `url`. `mirrors` are further URLs of the
/// same file, tried in turn when an attempt fails (`DownloadOptions.mirrors`; at most
/// ``maxMirrors``). `maxConnections` is `DownloadOptions.maxConnections` (1 to
/// ``maxConnectionsLimit``; absent: automatic).
///
/// A file already at the destination (or at its staging name, `NAME.part`) is kept: the download
/// is saved as `NAME.1.EXT` (then `NAME.2.EXT`, ...), as aria2c's `--auto-file-renaming` does,
/// and the answer's `destination` says where. `overwrite: true` replaces it instead when the
/// download completes. Paths the agent keeps for itself (its socket and its state directory)
/// are refused (400 `bad-destination`).
public struct AgentDownloadRequest: Codable, Sendable, Hashable {
    public var id: String
    public var url: String
    public var destination: String?
    public var headers: [String: String]?
    public var secretHeaders: [String]?
    public var sha256: String?
    public var expectedSize: Int64?
    public var priority: Int?
    public var mirrors: [String]?
    public var maxConnections: Int?
    public var start: Bool?
    /// Whether a file already at the destination is replaced (`true`) instead of kept with the
    /// download saved under the next free name (absent or `false`).
    public var overwrite: Bool?
    /// Whom the agent tells when the download completes or fails for good, beside or instead of
    /// its defaults (see ``AgentNotify``); absent: the agent's defaults.
    public var notify: AgentNotify?

    /// The most connections one download may ask for (more is a 400 `bad-connections`).
    public static let maxConnectionsLimit = 16

    /// The most mirrors one download may have (more is a 400 `bad-mirror`).
    public static let maxMirrors = 16

    public init(id: String, url: String, destination: String? = nil, headers: [String: String]? = nil,
                secretHeaders: [String]? = nil, sha256: String? = nil, expectedSize: Int64? = nil,
                priority: Int? = nil, mirrors: [String]? = nil, maxConnections: Int? = nil, start: Bool? = nil,
                overwrite: Bool? = nil, notify: AgentNotify? = nil) {
        self.id = id
        self.url = url
        self.destination = destination
        self.headers = headers
        self.secretHeaders = secretHeaders
        self.sha256 = sha256
        self.expectedSize = expectedSize
        self.priority = priority
        self.mirrors = mirrors
        self.maxConnections = maxConnections
        self.start = start
        self.overwrite = overwrite
        self.notify = notify
    }

    /// The request for a download as `Downloader.start(id:url:destination:options:)`
    /// takes it. Of `options`, the API carries the header fields (secret ones marked), the
    /// SHA-256, the expected size, the priority, the mirrors and the connections; the other transfer options are the
    /// agent's.
    public init(id: String, url: URL, destination: URL?, options: DownloadOptions?, start: Bool) {
        let headers = options?.transfer.headers ?? []
        self.init(id: id, url: url.absoluteString, destination: destination?.path,
                  headers: headers.isEmpty ? nil : Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
                  secretHeaders: headers.contains(where: \.isSecret) ? headers.filter(\.isSecret).map(\.name) : nil,
                  sha256: options?.sha256, expectedSize: options?.expectedSize,
                  priority: options.map(\.priority),
                  mirrors: options.flatMap { $0.mirrors.isEmpty ? nil : $0.mirrors.map(\.absoluteString) },
                  maxConnections: options?.maxConnections, start: start)
    }
}
