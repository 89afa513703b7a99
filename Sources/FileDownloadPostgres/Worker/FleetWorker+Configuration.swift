public import Foundation
public import FileDownload

extension FleetWorker {
    /// How a worker claims, holds and runs downloads.
    public struct Configuration: Sendable {
        /// This machine's name in the queue (`node` column): a download whose bytes are on a
        /// node's own disk continues there only if that node claims it again.
        public var node: String
        /// Where the files go: each download's destination is a path relative to it.
        public var directory: URL
        /// Whether ``directory`` is storage every worker reaches at the same path (NFS, CephFS, a
        /// shared volume). Then a download another worker left continues from its checkpoint;
        /// otherwise it starts from zero unless it comes back to the node that has its bytes.
        public var sharedDirectory: Bool
        /// How many downloads the worker holds and runs at once.
        public var capacity: Int
        /// How long a claim lasts without renewal. A worker that dies leaves its downloads to
        /// others this long after its last renewal.
        public var lease: Duration
        /// How often the leases are renewed; a quarter of ``lease`` by default, and never more
        /// than a third of it.
        public var renewInterval: Duration
        /// How long an idle worker waits before it looks for work again.
        public var pollInterval: Duration
        /// The longest wait between attempts to reach PostgreSQL again after it went away (the
        /// wait doubles from 100 ms up to this).
        public var maxReconnectDelay: Duration
        /// Until how long after the last renewal that reached the queue a finished file is moved
        /// into place without asking the queue first (half the lease: every held lease then still
        /// runs for at least half of it). Tests set `.zero` to make every move ask.
        var moveConfirmationAge: Duration?
        /// The local downloader's settings; ``capacity`` and ``directory`` override its
        /// `maxConcurrentDownloads` and `downloadsDirectory`. Keep its `stagingSuffix` at `.part`:
        /// the queue's schema keeps `a` and `a.part` from being unfinished together (one staging
        /// family, `DestinationPolicy.stagingFamily(of:stagingSuffix:)`) with that suffix only.
        public var downloader: DownloaderConfiguration

        /// Creates a configuration.
        public init(
            node: String = ProcessInfo.processInfo.hostName, directory: URL, sharedDirectory: Bool = false,
            capacity: Int = 4, lease: Duration = .seconds(30), renewInterval: Duration? = nil,
            pollInterval: Duration = .seconds(1), maxReconnectDelay: Duration = .seconds(5),
            downloader: DownloaderConfiguration = DownloaderConfiguration()
        ) {
            self.node = node
            self.directory = directory.standardizedFileURL
            self.sharedDirectory = sharedDirectory
            self.capacity = max(1, capacity)
            self.lease = max(lease, .milliseconds(300))
            self.renewInterval = min(renewInterval ?? self.lease / 4, self.lease / 3)
            self.pollInterval = pollInterval
            self.maxReconnectDelay = maxReconnectDelay
            self.downloader = downloader
        }
    }
}
