public import Foundation
public import Logging

/// How a ``Downloader`` behaves. Every value has a default.
public struct DownloaderConfiguration: Sendable {
    /// Downloads running at once; the rest wait in a FIFO queue (by priority, then start order).
    public var maxConcurrentDownloads: Int
    /// Retries of retryable failures.
    public var retryPolicy: RetryPolicy
    /// The downloader samples progress and timeouts this often, and emits at most one progress
    /// event per download (and one total) per interval. Default 250 ms.
    public var progressInterval: Duration
    /// How often bytes on disk are flushed and checkpointed to the store. Default 2 s.
    public var checkpointInterval: Duration
    /// Where downloads go when `start` names no destination.
    public var downloadsDirectory: URL
    /// Added to the destination's path to name the staging file. Default `.part`.
    public var stagingSuffix: String
    /// Options of downloads that do not give their own.
    public var defaultTransferOptions: TransferOptions
    /// Whether ``Downloader/restore()`` resumes downloads that were running when the process died.
    public var resumeInterruptedOnRestore: Bool
    /// Whether a finished file is flushed to disk (`fdatasync`) before it is renamed onto its
    /// destination, and the directory after, so that a crash never leaves a destination with
    /// missing bytes. Default `true`; turn it off only for data you can fetch again.
    ///
    /// When on, the staging file is also handed to the kernel's writeback every 8 MiB while it
    /// downloads (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`, which does not wait),
    /// so the flush at the end waits only for the tail. Downloads that finish close together are
    /// made durable as a group, off Swift's cooperative pool: every file of the group is flushed,
    /// then each is renamed, then each directory they went to is flushed once. A download's
    /// ``DownloadEvent/completed(id:file:)`` (and its `completed` state) comes only after its
    /// group is on disk. There is no waiting window: a group is whatever finished while the one
    /// before was being flushed, so a lone download is not delayed. A file whose flush fails is
    /// not moved and only its download fails. The directory flush is asked for; a file system
    /// that refuses it (EIO, EINVAL) is logged as a warning, not failed (the file is in place,
    /// whole).
    public var synchronizesFiles: Bool
    /// Where finished files are flushed and moved into place, in groups (with
    /// ``synchronizesFiles``): by default the process-wide one, so completions of every
    /// downloader share groups. Tests give one with a recording file system.
    package var completionFlusher: CompletionFlusher = .shared
    /// Seed for the retry jitter; `nil` draws from the system. Set it for reproducible tests.
    public var jitterSeed: UInt64?
    /// Whether a download that does not fit in its file system's free space, or meets a full disk
    /// (ENOSPC), waits (``WaitReason/insufficientSpace``) and continues by itself when there is
    /// room. Default `true`; `false` leaves such a download interrupted until it is resumed.
    public var waitsForSpace: Bool
    /// Whether failures that mean "no way out of the machine" (``FailureClass/waitForNetwork`` in
    /// ``FailurePolicy``'s table: no route, no default route) make a download wait for the network
    /// (``WaitReason/waitingForNetwork``) without using its retries, for at most
    /// ``maxNetworkWait``. Default `true`; `false` counts them as retries like any retryable
    /// failure.
    public var waitsForNetwork: Bool
    /// Tells the downloader when the network may have changed; `nil` uses the system's
    /// (``NetlinkNetworkMonitor`` on Linux). Asked only once a download waits for the network.
    public var networkMonitor: (any NetworkChangeMonitor)?
    /// The longest time a download waiting for the network waits before it is tried again when
    /// no change was signalled (the slow probe). Default 30 s.
    public var networkProbeInterval: Duration
    /// The longest a download waits for the network (``WaitReason/waitingForNetwork``) in one
    /// stretch: from the failure that first put it on hold until an attempt to its server gets an
    /// answer. After it the download fails with its last error, which says how long it waited
    /// ("no way to the server for …: giving up"); ``Downloader/resume(_:)`` starts a new stretch.
    /// Looked at on every tick. Default 24 hours (an agent rides out a night offline); a program
    /// a person watches sets less (`fdl get` waits 30 s). The resource timeout
    /// (``TransferOptions/resourceTimeout``) counts this time too.
    public var maxNetworkWait: Duration = .seconds(24 * 3600)
    /// How long before ``DownloadOptions/urlExpiresAt`` a fresh URL is asked for (at most a
    /// quarter of the URL's life). Default 30 s.
    public var urlRefreshLead: Duration
    /// How long a download on hold for a fresh link (``WaitReason/refreshingURL``) waits for the
    /// delegate's answer (``DownloaderDelegate/freshURL(forID:current:reason:)``), on the
    /// downloader's clock, looked at on every tick. After it, the download goes on as with a `nil`
    /// answer (it fails with the server's refusal, or uses its retries or next mirror as that
    /// refusal would) and a later answer is ignored; ``Downloader/updateURL(id:to:expiresAt:)``
    /// still re-points it. Default 5 minutes.
    public var freshURLTimeout: Duration
    /// From how many bytes on a file is fetched over several connections at once (segments; see
    /// ``DownloadOptions/maxConnections``): a download whose first answer announces a length of
    /// at least this, with a strong validator, from a transport listing
    /// ``TransportCapabilities/ranges``, is split. Smaller files use one connection. Default
    /// 16 MiB: below it a second connection's handshake costs about what it saves.
    public var segmentThreshold: Int64 = 16 << 20
    /// The smallest piece a segment is cut into: a split (at the start, or when a connection that
    /// finished takes half of the largest remaining segment) never leaves a piece below this.
    /// Default 4 MiB: every piece waits a round trip (and for a new connection, a handshake)
    /// before its first byte, so small pieces spend much of their time waiting; a 64 MiB file is
    /// then cut in at most 16 pieces, one just above the 16 MiB threshold in 3.
    public var minimumSegmentSize: Int64 = 4 << 20
    /// The most connections open at once to one origin (`URL.origin`: scheme, host and port),
    /// counting every connection of every download to it; at least 1. A download whose origin is
    /// at its cap waits in the queue (``DownloadState/waiting``, using no retry) and starts when
    /// a connection to it closes. ``Downloader/setMaxConnections(_:forHost:)`` overrides it per
    /// host while the downloader runs. URLs without a host (`file://`) are not counted.
    ///
    /// Default 8: enough to fill a long, fat link when a server throttles each connection, and
    /// about what browsers (6 per host) and download managers commonly use; servers and CDNs
    /// that ban greedy clients tolerate that much. The downloader starts with fewer connections
    /// per download and adds them only while throughput grows (see docs/connections.md).
    public var maxConnectionsPerHost: Int
    /// Whether symbolic links that already exist, when a download is added, in the directories
    /// between ``downloadsDirectory`` and its destination are followed. Default `true`: the
    /// application chose the destination, so `~/Downloads` being a link to another disk is its
    /// own doing, and ``Downloader/add(id:url:destination:options:)`` stores (and returns) the
    /// destination with those links resolved. In both cases a directory below
    /// ``downloadsDirectory`` swapped for a link after the download was added is refused when an
    /// attempt starts and before the finished file is moved
    /// (``DownloadError/Code/invalidDestination``, nothing written through it). A destination
    /// whose real path lies outside ``downloadsDirectory`` is then one like any other outside it,
    /// as if the application had given the real path: its directories are made, not checked.
    ///
    /// `false` refuses every link there, whenever it appeared: for a front end whose destination
    /// names come from others (the agent's API, the fleet's queue), where a link planted before
    /// the add must not carry a file out of the directory.
    public var followsExistingLinks: Bool = true
    public var logger: Logger

    public init(
        maxConcurrentDownloads: Int = 4,
        retryPolicy: RetryPolicy = RetryPolicy(),
        progressInterval: Duration = .milliseconds(250),
        checkpointInterval: Duration = .seconds(2),
        downloadsDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        stagingSuffix: String = ".part",
        defaultTransferOptions: TransferOptions = TransferOptions(),
        resumeInterruptedOnRestore: Bool = true,
        synchronizesFiles: Bool = true,
        jitterSeed: UInt64? = nil,
        waitsForSpace: Bool = true,
        waitsForNetwork: Bool = true,
        networkMonitor: (any NetworkChangeMonitor)? = nil,
        networkProbeInterval: Duration = .seconds(30),
        urlRefreshLead: Duration = .seconds(30),
        freshURLTimeout: Duration = .seconds(300),
        maxConnectionsPerHost: Int = 8,
        logger: Logger = Logger(label: "FileDownload")
    ) {
        self.maxConcurrentDownloads = max(1, maxConcurrentDownloads)
        self.retryPolicy = retryPolicy
        self.progressInterval = progressInterval
        self.checkpointInterval = checkpointInterval
        self.downloadsDirectory = downloadsDirectory
        self.stagingSuffix = stagingSuffix
        self.defaultTransferOptions = defaultTransferOptions
        self.resumeInterruptedOnRestore = resumeInterruptedOnRestore
        self.synchronizesFiles = synchronizesFiles
        self.jitterSeed = jitterSeed
        self.waitsForSpace = waitsForSpace
        self.waitsForNetwork = waitsForNetwork
        self.networkMonitor = networkMonitor
        self.networkProbeInterval = networkProbeInterval
        self.urlRefreshLead = urlRefreshLead
        self.freshURLTimeout = freshURLTimeout
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.logger = logger
    }
}
