public import Foundation

/// Per-download settings a transport honours as far as its ``TransportCapabilities`` say.
///
/// Options are stored with a download (crash recovery) except for header fields marked sensitive
/// (``HeaderField/isSensitive``): those are kept in memory only. Credentials never belong here; they
/// come through ``TransferRequest/authenticate(_:)``.
public struct TransferOptions: Sendable, Hashable, Codable {
    /// Extra request header fields, in order.
    public var headers: [HeaderField]
    /// The user agent; `nil` means the transport's default.
    public var userAgent: String?
    /// An attempt fails with ``DownloadError/Code/timedOut`` when no byte arrives for this long.
    /// Default 60 s. The downloader enforces it on its clock; transports may enforce it too.
    public var requestTimeout: Duration
    /// A download fails with ``DownloadError/Code/resourceTimedOut`` when it has been active
    /// (downloading, not waiting in the queue, not paused) for this long in total. Default 7 days.
    public var resourceTimeout: Duration
    /// An attempt fails when the connection is not established within this time. Default 30 s.
    public var connectTimeout: Duration
    /// A cap on the transfer rate in bytes per second; `nil` for none.
    public var maxBytesPerSecond: Int64?
    /// A proxy URL (`http://host:port`), for transports that support one.
    public var proxy: URL?
    /// Transport-specific settings by name (documented by each transport). Not secret.
    public var extra: [String: String]

    public init(
        headers: [HeaderField] = [],
        userAgent: String? = nil,
        requestTimeout: Duration = .seconds(60),
        resourceTimeout: Duration = .seconds(7 * 24 * 3600),
        connectTimeout: Duration = .seconds(30),
        maxBytesPerSecond: Int64? = nil,
        proxy: URL? = nil,
        extra: [String: String] = [:]
    ) {
        self.headers = headers
        self.userAgent = userAgent
        self.requestTimeout = requestTimeout
        self.resourceTimeout = resourceTimeout
        self.connectTimeout = connectTimeout
        self.maxBytesPerSecond = maxBytesPerSecond
        self.proxy = proxy
        self.extra = extra
    }

    /// A copy without the header fields marked sensitive and without a password in the proxy
    /// URL: what may be persisted.
    public var withoutSecrets: TransferOptions {
        var copy = self
        copy.headers.removeAll { $0.isSensitive }
        copy.proxy = proxy?.removingCredentials
        return copy
    }

    private enum CodingKeys: String, CodingKey {
        case headers, userAgent, requestTimeout, resourceTimeout, connectTimeout, maxBytesPerSecond, proxy, extra
    }

    /// Encodes everything except sensitive header fields and a proxy password.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(headers.filter { !$0.isSensitive }, forKey: .headers)
        try c.encodeIfPresent(userAgent, forKey: .userAgent)
        try c.encode(requestTimeout, forKey: .requestTimeout)
        try c.encode(resourceTimeout, forKey: .resourceTimeout)
        try c.encode(connectTimeout, forKey: .connectTimeout)
        try c.encodeIfPresent(maxBytesPerSecond, forKey: .maxBytesPerSecond)
        try c.encodeIfPresent(proxy?.removingCredentials, forKey: .proxy)
        try c.encode(extra, forKey: .extra)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.headers = try c.decodeIfPresent([HeaderField].self, forKey: .headers) ?? []
        self.userAgent = try c.decodeIfPresent(String.self, forKey: .userAgent)
        self.requestTimeout = try c.decodeIfPresent(Duration.self, forKey: .requestTimeout) ?? .seconds(60)
        self.resourceTimeout = try c.decodeIfPresent(Duration.self, forKey: .resourceTimeout) ?? .seconds(7 * 24 * 3600)
        self.connectTimeout = try c.decodeIfPresent(Duration.self, forKey: .connectTimeout) ?? .seconds(30)
        self.maxBytesPerSecond = try c.decodeIfPresent(Int64.self, forKey: .maxBytesPerSecond)
        self.proxy = try c.decodeIfPresent(URL.self, forKey: .proxy)
        self.extra = try c.decodeIfPresent([String: String].self, forKey: .extra) ?? [:]
    }
}
