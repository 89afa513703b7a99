public import Foundation

/// Per-download settings given to ``Downloader/start(id:url:destination:options:)``.
public struct DownloadOptions: Sendable, Hashable, Codable {
    /// What the transport is told (headers, timeouts, rate limit, ...).
    public var transfer: TransferOptions
    /// The size the file must have; a different size fails validation.
    public var expectedSize: Int64?
    /// The SHA-256 the file must have (hex, either case); a different digest fails validation.
    public var sha256: String?
    /// Higher runs first; equal priorities run in the order they were started (FIFO).
    public var priority: Int
    /// Overrides the downloader's retry policy for this download.
    public var retryPolicy: RetryPolicy?
    /// Other URLs of the same file (mirrors), tried in turn after the download's URL when an
    /// attempt fails (see "Mirrors" in docs/states.md). Bytes on disk are continued from a mirror only
    /// under the strong validator and length they were downloaded with (the transport's `If-Range`
    /// rules): a mirror with another validator or size starts the file over, never splices onto
    /// it. Without a strong validator (the first URL gave none, or a weak one), or when the
    /// mirror's transport cannot compare validators, the bytes are started over at the mirror.
    /// Stored without credentials (like the URL). Secret header fields (``HeaderField/isSensitive``,
    /// from ``transfer`` or the delegate) go only to mirrors of the first URL's origin
    /// (`URL.origin`); an attempt on a mirror of another origin is made without them.
    public var mirrors: [URL]
    /// Whether the file is saved under the name the server suggests (HTTP `Content-Disposition`,
    /// ``TransferHead/suggestedFilename``) instead of the destination's last component. The name
    /// is sanitised with ``FileNameSanitizer`` and placed in the destination's directory; when
    /// that name is taken (a file is there or at its staging name, or another download of the
    /// downloader has it as destination) the first free `NAME.1.EXT`, `NAME.2.EXT`, ... is used.
    /// The move never replaces anything (`renameat2` with `RENAME_NOREPLACE`): a name taken at
    /// the last moment (another download completing under the same name) gives the next one.
    /// It is chosen when the file completes, from the first name a head of this download
    /// suggested in this process, and then recorded as the download's destination. Without a
    /// suggestion the destination is used as given. Default `false`.
    public var usesSuggestedFileName: Bool
    /// When the download's URL stops working (a presigned URL's expiry), if it does. Shortly
    /// before (``DownloaderConfiguration/urlRefreshLead``, at most a quarter of the time left when
    /// the download was started) the downloader asks for a fresh URL
    /// (``DownloadEvent/needsFreshURL(id:reason:)``,
    /// ``DownloaderDelegate/freshURL(forID:current:reason:)``). Measured on the downloader's clock
    /// from the moment the download is started, restored or re-pointed
    /// (``Downloader/updateURL(id:to:expiresAt:)``). Default `nil`: the URL does not expire.
    public var urlExpiresAt: Date?
    /// How many connections this download may use at once (segments of one file, see
    /// ``DownloaderConfiguration/segmentThreshold``): `nil` (default) is automatic: as many as
    /// the host's adaptive target leaves (the count remembered for the host in the store, else 2;
    /// doubling while the throughput grows with the connections), up to
    /// ``Downloader/automaticConnections``; `1` is one
    /// connection, exactly as before segments existed; `n` is up to `n` from the start. Every
    /// connection counts against ``DownloaderConfiguration/maxConnectionsPerHost`` with those of
    /// the other downloads to the host, and after the host throttles (429, 503, refusals) against
    /// its halved target. Only a file of at least the threshold, with a strong validator, from a
    /// transport listing ``TransportCapabilities/ranges``, is split; every other download uses
    /// one connection.
    public var maxConnections: Int?
    /// The most bytes the file may have; `nil` (default) for no limit. A response that announces
    /// a larger size fails before its body is written; one without a size (chunked, or ended by
    /// closing) fails when its bytes would pass the limit, with none of those bytes written.
    /// Either way the download fails with ``DownloadError/Code/maxFileSizeExceeded``, is not
    /// retried, and its bytes are discarded: nothing is left at the destination or its staging
    /// name. Checked on every attempt, also one that resumes.
    public var maxFileSize: Int64?
    /// Whether the finished file gets the remote file's modification time (as `wget` does by
    /// default and `curl -R`): HTTP `Last-Modified`, FTP `MDTM`, the SFTP mtime, from the head of
    /// the attempt that completed it (``TransferHead/modificationDate``, else the time in its
    /// validator). Set on the staging file just before it is moved into place, without following a
    /// link; a server that reports no time leaves the time of the download. Best effort, as
    /// `curl -R`: a file system that refuses the time (`EPERM` on some mounts) leaves the time of
    /// the download, with a warning in the downloader's log, and the download still completes.
    /// Default `false`.
    public var keepsRemoteTime: Bool

    /// Options for one download; every argument has the default of the property of the same name,
    /// so `DownloadOptions()` is a plain download: no checks beyond the transport's, priority 0,
    /// the downloader's retry policy, no mirrors, the URL's file name, automatic connections, no
    /// size limit, the time of the download.
    ///
    /// How they combine (each is described at its property):
    /// - `transfer` is laid over ``DownloaderConfiguration/defaultTransferOptions`` when the
    ///   download is added (``resolved(with:)``): fields left unset take the default, header
    ///   fields are combined by name.
    /// - `expectedSize` and `sha256` are both checked when the body is complete; a file that
    ///   fails either is not moved to the destination (``DownloadError/Code/validationFailed``).
    ///   `maxFileSize` is checked while the body arrives, before either.
    /// - `mirrors` are tried after `url` when an attempt fails, under the same `retryPolicy`
    ///   (`nil`: ``DownloaderConfiguration/retryPolicy``); every connection `maxConnections`
    ///   allows also counts against ``DownloaderConfiguration/maxConnectionsPerHost``.
    /// - `usesSuggestedFileName` changes only the last component of the destination, and never
    ///   replaces a file; without it a file at the destination is replaced when the download
    ///   completes (see ``Downloader/add(id:url:destination:options:)``).
    ///
    /// The initializer checks nothing: ``Downloader/add(id:url:destination:options:)`` checks the
    /// header fields, the SHA-256's form and the mirrors when the download is added, and throws
    /// there.
    ///
    /// - Parameters:
    ///   - transfer: headers, timeouts, rate limit, ... (``transfer``); default: none set.
    ///   - expectedSize: the size the file must have (``expectedSize``); default `nil`.
    ///   - sha256: the digest the file must have, 64 hex digits (``sha256``); default `nil`.
    ///   - priority: higher runs first (``priority``); default 0.
    ///   - retryPolicy: replaces the downloader's for this download (``retryPolicy``); default `nil`.
    ///   - mirrors: other URLs of the same file (``mirrors``); default none.
    ///   - usesSuggestedFileName: save under the server's name (``usesSuggestedFileName``); default `false`.
    ///   - urlExpiresAt: when the URL stops working (``urlExpiresAt``); default `nil`.
    ///   - maxConnections: connections at once (``maxConnections``); default `nil`, automatic.
    ///   - maxFileSize: the most bytes the file may have (``maxFileSize``); default `nil`.
    ///   - keepsRemoteTime: give the file the server's modification time (``keepsRemoteTime``);
    ///     default `false`.
    public init(
        transfer: TransferOptions = TransferOptions(),
        expectedSize: Int64? = nil,
        sha256: String? = nil,
        priority: Int = 0,
        retryPolicy: RetryPolicy? = nil,
        mirrors: [URL] = [],
        usesSuggestedFileName: Bool = false,
        urlExpiresAt: Date? = nil,
        maxConnections: Int? = nil,
        maxFileSize: Int64? = nil,
        keepsRemoteTime: Bool = false
    ) {
        self.transfer = transfer
        self.expectedSize = expectedSize
        self.sha256 = sha256
        self.priority = priority
        self.retryPolicy = retryPolicy
        self.mirrors = mirrors
        self.usesSuggestedFileName = usesSuggestedFileName
        self.urlExpiresAt = urlExpiresAt
        self.maxConnections = maxConnections
        self.maxFileSize = maxFileSize
        self.keepsRemoteTime = keepsRemoteTime
    }

    private enum CodingKeys: String, CodingKey {
        case transfer, expectedSize, sha256, priority, retryPolicy, mirrors, usesSuggestedFileName, urlExpiresAt
        case maxConnections, maxFileSize, keepsRemoteTime
    }

    /// Decodes options; fields added after the first release (mirrors, usesSuggestedFileName,
    /// urlExpiresAt, maxConnections, maxFileSize, keepsRemoteTime) may be missing (records of earlier versions) and get their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.transfer = try c.decode(TransferOptions.self, forKey: .transfer)
        self.expectedSize = try c.decodeIfPresent(Int64.self, forKey: .expectedSize)
        self.sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
        self.priority = try c.decode(Int.self, forKey: .priority)
        self.retryPolicy = try c.decodeIfPresent(RetryPolicy.self, forKey: .retryPolicy)
        self.mirrors = try c.decodeIfPresent([URL].self, forKey: .mirrors) ?? []
        self.usesSuggestedFileName = try c.decodeIfPresent(Bool.self, forKey: .usesSuggestedFileName) ?? false
        self.urlExpiresAt = try c.decodeIfPresent(Date.self, forKey: .urlExpiresAt)
        self.maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections)
        self.maxFileSize = try c.decodeIfPresent(Int64.self, forKey: .maxFileSize)
        self.keepsRemoteTime = try c.decodeIfPresent(Bool.self, forKey: .keepsRemoteTime) ?? false
    }

    /// Encodes the options; mirrors without credentials (sensitive header fields are left out by
    /// ``TransferOptions``).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(transfer, forKey: .transfer)
        try c.encodeIfPresent(expectedSize, forKey: .expectedSize)
        try c.encodeIfPresent(sha256, forKey: .sha256)
        try c.encode(priority, forKey: .priority)
        try c.encodeIfPresent(retryPolicy, forKey: .retryPolicy)
        if !mirrors.isEmpty { try c.encode(mirrors.map(\.removingCredentials), forKey: .mirrors) }
        if usesSuggestedFileName { try c.encode(true, forKey: .usesSuggestedFileName) }
        try c.encodeIfPresent(urlExpiresAt, forKey: .urlExpiresAt)
        try c.encodeIfPresent(maxConnections, forKey: .maxConnections)
        try c.encodeIfPresent(maxFileSize, forKey: .maxFileSize)
        if keepsRemoteTime { try c.encode(true, forKey: .keepsRemoteTime) }
    }
}
