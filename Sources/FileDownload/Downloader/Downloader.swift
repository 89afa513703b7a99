public import Foundation
import Logging

/// Downloads many files at once, each under an identifier the caller chooses, through whichever
/// ``Transport`` serves the URL's scheme.
///
/// ```swift
/// var transports = TransportRegistry()
/// transports.register(try HTTPTransport(), for: "http", "https")
/// let downloader = Downloader(transports: transports)
/// try await downloader.start(id: "iso", url: URL(string: "https://example.org/debian.iso")!)
/// if case .completed(let file) = try await downloader.outcome(of: "iso") {
///     print("saved to", file.path)
/// }
/// await downloader.shutdown()
/// ```
///
/// ``start(id:url:destination:options:)`` returns as soon as the download is queued;
/// ``outcome(of:)`` and ``outcomes(of:)`` wait until downloads are over, ``events()`` and the
/// delegate tell everything on the way.
///
/// ## Lifecycle of a download
/// `start` registers the download and puts it in the waiting queue; it runs as soon as fewer than
/// ``DownloaderConfiguration/maxConcurrentDownloads`` downloads run (priority first, then FIFO).
/// Each *attempt* asks the transport for the bytes from the staging file's length on, into the
/// staging file (`<destination>.part`). A retryable failure makes the download `interrupted` and it
/// retries after an exponential, jittered delay, resuming at the bytes on disk; other failures make
/// it `failed`. When the transport finishes, the file is validated (size, SHA-256, delegate) and
/// only then moved atomically to its destination. The full table of states is in `docs/states.md`.
///
/// ## Time
/// Every timeout, retry delay, speed and progress throttle uses the clock given at init, so tests
/// can run on a manual clock without sleeping. The downloader samples its downloads every
/// ``DownloaderConfiguration/progressInterval`` on that clock; ``refresh()`` samples at once.
///
/// ## Persistence
/// With a ``DownloadStore``, every state change is stored before it is announced, and byte offsets
/// are checkpointed every ``DownloaderConfiguration/checkpointInterval`` after the bytes are
/// flushed. ``restore()`` brings everything back after the process died.
public actor Downloader {
    /// The configuration given at init.
    public nonisolated let configuration: DownloaderConfiguration
    /// The path of ``DownloaderConfiguration/downloadsDirectory``, read once: every attempt checks
    /// the directories below it, and `URL.path` decodes the URL at each call (0.6 µs of the
    /// actor's time a download in bench-core).
    let downloadsDirectoryPath: String
    let transports: TransportRegistry
    let delegate: (any DownloaderDelegate)?
    let clock: ClockBox
    let hub: EventHub
    /// The persistence part: the journal of store writes and events, and the store.
    let persistence: Persistence
    let outcomeWaiters = OutcomeWaiters()
    var logger: Logger { configuration.logger }

    var entries = EntryTable()
    /// The scheduling part: the waiting queue, the pages left in a paging store, the slots taken
    /// and the connections per origin; it answers which download starts next.
    var scheduler: Scheduler
    /// Ids of interrupted downloads with an automatic retry due.
    var retrying: Set<String> = []
    var rng: SplitMix64
    var tickTask: Task<Void, Never>?
    var lastTotal: TotalProgress?
    var lastTotalAt: Duration?
    var totalSpeed = SpeedEstimator()
    var isShutDown = false
    /// Which download claims which path, as its destination or its staging file (checked lazily
    /// against the state: only an unfinished download's claim counts).
    var claimedPaths: [String: String] = [:]
    var lastRootUpdate: Duration?
    /// Listens to the network monitor once a download waits for the network.
    var networkTask: Task<Void, Never>?
    /// The waits for the network: when it changed, when each server is probed, when it answered.
    var networkWaits: NetworkWaits
    /// The fresh URLs asked for: the downloads whose URL expires (``DownloadOptions/urlExpiresAt``),
    /// looked at on every tick, and when a hold for a fresh URL or an expiring URL asks.
    var freshURLs = FreshURLHolds()
    /// The holds for space: the file system of each staging directory asked about, and which
    /// downloads on hold for space go back to the queue.
    var spaceHolds = SpaceHolds()
    /// The one limit for all downloads (``setBandwidthLimit(_:)``), drawn from by every sink.
    nonisolated let bandwidth: BandwidthLimiter
    /// The schedule that sets ``bandwidth`` at every tick, if any (``setBandwidthSchedule(_:calendar:startingAt:)``).
    var bandwidthSchedule: ScheduledBandwidth?

    /// The progress of all downloads together, by bytes: `totalUnitCount` is the sum of the known
    /// sizes, `completedUnitCount` the bytes received of those. Its cancellation handler cancels
    /// every download that is not finished, its pausing handler pauses every active download, and
    /// its resuming handler resumes every paused one. The handlers run later, on another thread.
    public nonisolated let rootProgress: Progress

    /// Creates a downloader. It holds no download, reads nothing from `store` and touches no file
    /// until it is asked to. It does not throw: the configuration's values are used as given.
    ///
    /// - Parameters:
    ///   - configuration: limits, retry policy, intervals and directories; default
    ///     `DownloaderConfiguration()`. Kept as given (``configuration``).
    ///   - transports: the transport for each URL scheme. The registry is a value and is copied:
    ///     registering a scheme in the caller's registry afterwards changes nothing for this
    ///     downloader. ``shutdown()`` shuts its transports down.
    ///   - store: where downloads are kept for crash recovery; `nil` (default) keeps them in
    ///     memory only. Call ``restore()`` to load what the store holds, before adding downloads
    ///     (an id the store holds is refused as a duplicate either way).
    ///   - delegate: receives notifications and answers questions (see ``DownloaderDelegate``).
    ///   - clock: the source of time; a manual clock makes every time-based behaviour testable.
    public init<C: Clock>(
        configuration: DownloaderConfiguration = DownloaderConfiguration(),
        transports: TransportRegistry,
        store: (any DownloadStore)? = nil,
        delegate: (any DownloaderDelegate)? = nil,
        clock: C = ContinuousClock()
    ) where C.Duration == Duration {
        self.configuration = configuration
        self.downloadsDirectoryPath = configuration.downloadsDirectory.path
        self.transports = transports
        self.delegate = delegate
        self.clock = ClockBox(clock)
        self.bandwidth = BandwidthLimiter(bytesPerSecond: nil, clock: clock)
        self.scheduler = Scheduler(maxConnectionsPerHost: configuration.maxConnectionsPerHost)
        self.networkWaits = NetworkWaits(probeInterval: configuration.networkProbeInterval)
        let hub = EventHub(delegate: delegate)
        self.hub = hub
        self.persistence = Persistence(store: store, hub: hub, logger: configuration.logger)
        self.rng = SplitMix64(seed: configuration.jitterSeed ?? UInt64.random(in: .min ... .max))
        let root = Progress(totalUnitCount: -1)
        root.isCancellable = true
        root.isPausable = true
        self.rootProgress = root
        Task { [weak self] in await self?.installRootHandlers() }
    }

    /// A downloader dropped without ``shutdown()`` stops listening to the network: the monitor's
    /// sequence ends (for ``NetlinkNetworkMonitor``, its thread closes its socket within half a
    /// second), and the tick loop ends.
    deinit {
        networkTask?.cancel()
        tickTask?.cancel()
    }

    /// A new sequence of every event from now on, in order. Each call makes an independent
    /// subscriber with an unbounded buffer; the sequence ends after ``shutdown()``. Subscribe before
    /// starting downloads to miss nothing.
    public nonisolated func events() -> AsyncStream<DownloadEvent> {
        hub.subscribe()
    }

    /// Calls `observer` with every event from now on, synchronously and in order, from the
    /// downloader's event queue, before the same event reaches the ``events()`` sequences. Once
    /// ``settle()`` returns, every observer has seen every event caused before it was called.
    /// The observer must be quick and must not wait for the downloader; it lives as long as the
    /// downloader.
    public nonisolated func observe(_ observer: @escaping @Sendable (DownloadEvent) -> Void) {
        hub.observe(observer)
    }

    // MARK: queries

    /// The state of download `id`, or `nil` when no download has that id. (A waiting download
    /// left in a paging store is read from the store.)
    public func state(of id: String) async -> DownloadState? {
        if let e = entries[id] { return e.state }
        return await recordInStoreOrLog(id)?.state
    }

    /// The progress of download `id`, or `nil` when no download has that id.
    public func progress(of id: String) async -> DownloadProgress? {
        if let e = entries[id] { return e.progress() }
        return await recordInStoreOrLog(id).map { DownloadEntry(record: $0).progress() }
    }

    /// What the downloader knows of download `id`.
    public func info(of id: String) async -> DownloadInfo? {
        if let e = entries[id] { return e.info() }
        return await recordInStoreOrLog(id).map { DownloadEntry(record: $0).info() }
    }

    /// Whether download `id` has an attempt running.
    public func isDownloading(_ id: String) -> Bool { entries[id]?.state == .downloading }

    /// Whether download `id` waits in the queue (in memory or in a paging store).
    public func isWaiting(_ id: String) async -> Bool { await state(of: id) == .waiting }

    /// Whether any download is waiting (in memory or in a paging store), downloading, or
    /// interrupted with a retry due.
    public var hasActiveDownloads: Bool {
        !scheduler.running.isEmpty || !retrying.isEmpty || scheduler.pages.mayHoldWaiting || entries.values.contains { $0.state == .waiting }
    }

    /// Every download, in queue order (with a paging store, read from the store: this costs a
    /// pass over every record; ``downloads(in:after:limit:)`` reads a page).
    public func downloads() async -> [DownloadInfo] {
        if scheduler.pages.isActive, let store = persistence.store {
            await persistence.drain()
            do {
                return describe(try await store.loadAll())
            } catch {
                logger.error("the store could not be read", metadata: ["error": "\(error)"])
            }
        }
        return entries.values.sorted { $0.queueOrder < $1.queueOrder }.map { $0.info() }
    }

    /// Resume data for download `id` as it stands now, if it has bytes that can be continued
    /// (paused, interrupted or failed with its bytes kept).
    public func resumeData(for id: String) -> ResumeData? {
        guard let e = entries[id], [.paused, .interrupted, .failed].contains(e.state) else { return nil }
        return e.resumeData()
    }

    /// Progress over all downloads, by bytes (see ``TotalProgress``).
    public var totalProgress: TotalProgress { computeTotal(now: clock.now()) }

    /// The `Foundation.Progress` of download `id`. Its `totalUnitCount` is the size in bytes (or
    /// -1 when unknown) and `completedUnitCount` the bytes on disk, updated every progress
    /// interval. Calling its `cancel()`, `pause()` or `resume()` cancels, pauses or resumes the
    /// download (later, from another thread; errors such as "already paused" are ignored). Its
    /// `isPaused` reflects those calls, not ``state(of:)``.
    ///
    /// The object is made on the first call for `id` (set to the download's current progress) and
    /// the same object is returned from then on; downloads nobody asks about carry none.
    public func nativeProgress(for id: String) async -> Progress? {
        do { try await pageIn(id) } catch {
            logger.error("the store could not be read", metadata: ["error": "\(error)"])
        }
        guard var e = entries[id] else { return nil }
        if let native = e.nativeProgress { return native }
        let native = makeNativeProgress(id: id)
        e.nativeProgress = native
        entries[id] = e
        updateNativeProgress(e)
        return native
    }

    /// Samples every running download now: progress events, speed, timeouts and due retries, as
    /// the downloader does by itself every ``DownloaderConfiguration/progressInterval``.
    public func refresh() {
        tick()
    }

    /// Returns when every store write and event caused so far has been done: observers
    /// (``observe(_:)``) have seen the events, and the ``events()`` sequences hold them.
    public func settle() async {
        await persistence.drain()
    }

    /// Stops every running attempt (those downloads become `interrupted`, so that ``restore()``
    /// continues them in a later process; an attempt that does not stop is abandoned after
    /// ``stopTimeout`` on the downloader's clock), answers every ``outcome(of:)`` wait, shuts the
    /// transports down, and ends every event sequence. The downloader accepts no new work afterwards.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        tickTask?.cancel()
        tickTask = nil
        networkTask?.cancel()
        networkTask = nil
        var handles: [AttemptHandle] = []
        for id in scheduler.running {
            guard var e = entries[id], let handle = e.attempt else { continue }
            var events: [DownloadEvent] = []
            guard let reason = carryOut(e.lifecycle.shutdown(), on: &e, events: &events, now: clock.now()).stop else { continue }
            requestStop(id, handle, reason)
            handles.append(handle)
        }
        for handle in handles { await handle.waitUntilEnded() }
        answerAllWaiters()
        await persistence.drain()
        for transport in transports.allTransports { await transport.shutdown() }
        await persistence.finish()
        await hub.finish()
    }

    private func installRootHandlers() {
        rootProgress.cancellationHandler = { [weak self] in
            Task { await self?.cancelAll() }
        }
        rootProgress.pausingHandler = { [weak self] in
            Task { await self?.pauseAll() }
        }
        rootProgress.resumingHandler = { [weak self] in
            Task { await self?.resumeAll() }
        }
    }

    func cancelAll() async {
        for id in entries.keys where !(entries[id]?.state.isTerminal ?? true) { try? await cancel(id) }
    }

    func pauseAll() async {
        for id in entries.keys where entries[id]?.state.isActive == true || entries[id]?.state == .interrupted {
            _ = try? await pause(id)
        }
    }

    func resumeAll() async {
        for id in entries.keys where entries[id]?.state == .paused { try? await resume(id) }
    }
}
