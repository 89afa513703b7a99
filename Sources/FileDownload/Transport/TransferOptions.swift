public import Foundation

/// Per-download settings a transport honours as far as its ``TransportCapabilities`` say.
///
/// Every field can be left unset, and a download's options are laid over the downloader's
/// ``DownloaderConfiguration/defaultTransferOptions`` in one place, ``merged(over:)`` (which
/// ``Downloader/add(id:url:destination:options:)`` calls through
/// ``DownloadOptions/resolved(with:)``): a field the download leaves unset takes the default's
/// value, a field it sets wins. Unset means `nil` for ``userAgent``, ``maxBytesPerSecond`` and
/// ``proxy``, and "never assigned" for the three timeouts (they read as their built-in default,
/// 60 s, 7 days and 30 s, until assigned: see ``isSet(_:)``). ``headers`` and ``extra`` are
/// combined: the default's first, a download's field or key of the same name replacing the
/// default's. So `DownloadOptions(sha256: digest)` keeps the default user agent, proxy, header
/// fields, rate limit and timeouts. To lift a default rate limit for one download set
/// ``maxBytesPerSecond`` to 0.
///
/// Options are stored with a download (crash recovery) except for header fields marked sensitive
/// (``HeaderField/isSensitive``): those are kept in memory only. Credentials never belong here; they
/// come through ``TransferRequest/authenticate(_:)``.
public struct TransferOptions: Sendable, Hashable, Codable {
    /// Extra request header fields, in order. Merged with the default's (see ``merged(over:)``).
    public var headers: [HeaderField]
    /// The user agent; `nil` means the default's, and without one the transport's default.
    public var userAgent: String?
    /// An attempt fails with ``DownloadError/Code/timedOut`` when no byte arrives for this long.
    /// Default 60 s. The downloader enforces it on its clock; transports may enforce it too.
    public var requestTimeout: Duration {
        get { requestTimeoutSetting ?? Self.defaultRequestTimeout }
        set { requestTimeoutSetting = newValue }
    }
    /// A download fails with ``DownloadError/Code/resourceTimedOut`` when it has been downloading,
    /// or waiting for a retry or for the network, for this long in total (not waiting in the
    /// queue, not paused). Default 7 days.
    public var resourceTimeout: Duration {
        get { resourceTimeoutSetting ?? Self.defaultResourceTimeout }
        set { resourceTimeoutSetting = newValue }
    }
    /// An attempt fails when the connection is not established within this time. Default 30 s.
    public var connectTimeout: Duration {
        get { connectTimeoutSetting ?? Self.defaultConnectTimeout }
        set { connectTimeoutSetting = newValue }
    }
    /// A cap on the download's rate in bytes per second: one budget that all the connections of
    /// the download draw on (see "Bandwidth" in the documentation); `nil` takes the default's
    /// limit, 0 (or below) is explicitly none.
    public var maxBytesPerSecond: Int64?
    /// A proxy URL (`http://host:port`), for transports that support one; `nil` takes the
    /// default's.
    public var proxy: URL?
    /// Transport-specific settings by name (documented by each transport). Not secret. Merged
    /// with the default's by key.
    public var extra: [String: String]

    /// The request timeout when it was assigned, `nil` when unset.
    private var requestTimeoutSetting: Duration?
    /// The resource timeout when it was assigned, `nil` when unset.
    private var resourceTimeoutSetting: Duration?
    /// The connect timeout when it was assigned, `nil` when unset.
    private var connectTimeoutSetting: Duration?

    /// What ``requestTimeout`` reads while unset: 60 s.
    public static let defaultRequestTimeout: Duration = .seconds(60)
    /// What ``resourceTimeout`` reads while unset: 7 days.
    public static let defaultResourceTimeout: Duration = .seconds(7 * 24 * 3600)
    /// What ``connectTimeout`` reads while unset: 30 s.
    public static let defaultConnectTimeout: Duration = .seconds(30)

    /// Options; every argument left out (or `nil`) is unset and falls back to the default's in
    /// ``merged(over:)``.
    public init(
        headers: [HeaderField] = [],
        userAgent: String? = nil,
        requestTimeout: Duration? = nil,
        resourceTimeout: Duration? = nil,
        connectTimeout: Duration? = nil,
        maxBytesPerSecond: Int64? = nil,
        proxy: URL? = nil,
        extra: [String: String] = [:]
    ) {
        self.headers = headers
        self.userAgent = userAgent
        self.requestTimeoutSetting = requestTimeout
        self.resourceTimeoutSetting = resourceTimeout
        self.connectTimeoutSetting = connectTimeout
        self.maxBytesPerSecond = maxBytesPerSecond
        self.proxy = proxy
        self.extra = extra
    }

    /// The fields of the options, each merged by ``merged(over:)``.
    public enum Field: String, CaseIterable, Sendable {
        case headers, userAgent, requestTimeout, resourceTimeout, connectTimeout, maxBytesPerSecond, proxy, extra
    }

    /// Whether `field` was set: a non-empty ``headers`` or ``extra``, a non-`nil` ``userAgent``,
    /// ``maxBytesPerSecond`` or ``proxy``, a timeout that was assigned (in the initializer or
    /// later, even to its built-in default).
    public func isSet(_ field: Field) -> Bool {
        switch field {
        case .headers: !headers.isEmpty
        case .userAgent: userAgent != nil
        case .requestTimeout: requestTimeoutSetting != nil
        case .resourceTimeout: resourceTimeoutSetting != nil
        case .connectTimeout: connectTimeoutSetting != nil
        case .maxBytesPerSecond: maxBytesPerSecond != nil
        case .proxy: proxy != nil
        case .extra: !extra.isEmpty
        }
    }

    /// These options laid over `defaults`: the one place where a download's options and the
    /// downloader's defaults meet.
    ///
    /// Each field this value sets wins, each field it leaves unset takes the value of `defaults`
    /// (set or not there). ``headers``: the default's fields first, in their order, except those
    /// whose name (case-insensitively) one of this value's fields has, then this value's fields in
    /// their order. ``extra``: the default's keys, with this value's keys replacing them. Merging
    /// again over the same defaults gives the same options.
    public func merged(over defaults: TransferOptions) -> TransferOptions {
        var merged = self
        let names = Set(headers.map { $0.name.lowercased() })
        merged.headers = defaults.headers.filter { !names.contains($0.name.lowercased()) } + headers
        merged.userAgent = userAgent ?? defaults.userAgent
        merged.requestTimeoutSetting = requestTimeoutSetting ?? defaults.requestTimeoutSetting
        merged.resourceTimeoutSetting = resourceTimeoutSetting ?? defaults.resourceTimeoutSetting
        merged.connectTimeoutSetting = connectTimeoutSetting ?? defaults.connectTimeoutSetting
        merged.maxBytesPerSecond = maxBytesPerSecond ?? defaults.maxBytesPerSecond
        merged.proxy = proxy ?? defaults.proxy
        merged.extra = defaults.extra.merging(extra) { _, own in own }
        return merged
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

    /// Encodes everything set except sensitive header fields and a proxy password. Records
    /// written before fields could be unset carry every timeout: they decode as set.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(headers.filter { !$0.isSensitive }, forKey: .headers)
        try c.encodeIfPresent(userAgent, forKey: .userAgent)
        try c.encodeIfPresent(requestTimeoutSetting, forKey: .requestTimeout)
        try c.encodeIfPresent(resourceTimeoutSetting, forKey: .resourceTimeout)
        try c.encodeIfPresent(connectTimeoutSetting, forKey: .connectTimeout)
        try c.encodeIfPresent(maxBytesPerSecond, forKey: .maxBytesPerSecond)
        try c.encodeIfPresent(proxy?.removingCredentials, forKey: .proxy)
        try c.encode(extra, forKey: .extra)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.headers = try c.decodeIfPresent([HeaderField].self, forKey: .headers) ?? []
        self.userAgent = try c.decodeIfPresent(String.self, forKey: .userAgent)
        self.requestTimeoutSetting = try c.decodeIfPresent(Duration.self, forKey: .requestTimeout)
        self.resourceTimeoutSetting = try c.decodeIfPresent(Duration.self, forKey: .resourceTimeout)
        self.connectTimeoutSetting = try c.decodeIfPresent(Duration.self, forKey: .connectTimeout)
        self.maxBytesPerSecond = try c.decodeIfPresent(Int64.self, forKey: .maxBytesPerSecond)
        self.proxy = try c.decodeIfPresent(URL.self, forKey: .proxy)
        self.extra = try c.decodeIfPresent([String: String].self, forKey: .extra) ?? [:]
    }
}
