import Foundation
public import FileDownload
public import Logging

/// One worker of a fleet: claims downloads from a ``PostgresDownloadQueue`` and runs them in a
/// local `Downloader`, under leases it keeps renewed.
///
/// ```swift
/// let worker = FleetWorker(queue: queue, transports: transports,
///                          configuration: .init(directory: URL(fileURLWithPath: "/srv/data")))
/// try await worker.run()      // until stop() or the task is cancelled
/// ```
///
/// ``run()`` in order:
/// 1. ``PostgresDownloadQueue/prepare()``: connects and migrates the schema. A wrong password, an
///    unreachable server or a schema of a newer version throws here, before anything is claimed.
/// 2. Loops: renews its leases every ``Configuration/renewInterval``; claims as many downloads as
///    it has free places (``Configuration/capacity``) whenever one finishes or every
///    ``Configuration/pollInterval``; starts each in the local downloader, from the previous
///    holder's checkpoint when its staging file is one this worker reaches at the same path
///    (shared directory, or the same node), else from zero.
/// 3. Every state change and checkpoint goes to the queue under the lease; a finished download
///    (completed, failed, cancelled) ends its lease and is forgotten locally.
///
/// What the caller may rely on:
/// - A download is worked by one live worker at a time. A worker that cannot renew stops the
///   downloads it holds (pauses them locally) once half the lease passed without a renewal,
///   before the lease lapses for the others; a download whose renewal says it is held no more
///   is stopped at once. Writes made under a lost lease are refused by the queue.
/// - PostgreSQL going away does not end ``run()``: the worker tries again with a doubling delay
///   (up to ``Configuration/maxReconnectDelay``) and carries on when it is back. Downloads it had
///   to stop are claimed again, by it or another worker.
/// - ``stop()`` (or cancelling the task of ``run()``) stops claiming, pauses the running
///   downloads (their checkpoints are written), gives their leases back (they are `queued`
///   again at once) and returns from ``run()``.
public actor FleetWorker {
    /// This worker's lease owner name: node, process id and a random part, unique per run.
    public nonisolated let owner: String
    /// How this worker claims, holds and runs downloads, as given to ``init(queue:transports:configuration:logger:)``.
    public nonisolated let configuration: Configuration
    let queue: PostgresDownloadQueue
    let transports: TransportRegistry
    let logger: Logger

    private var downloader: Downloader?
    /// The downloads this worker holds and runs.
    private var held: Set<LocalID> = []
    /// Local downloads of leases that were lost: kept paused, so their staging file is not deleted
    /// under whoever continues it; forgotten (file kept) when this worker claims the download
    /// again, or once its row is finished.
    private var stale: [String: LocalID] = [:]
    private var stopping = false
    /// Downloads that finished locally (claim number, when) during the last lease: their final
    /// write may still be on its way, so renewal keeps their leases instead of giving them back.
    private var finishing: [String: (claim: Int, at: ContinuousClock.Instant)] = [:]
    /// Set by the first ``run()``; a worker runs once.
    private var started = false
    private var wakeContinuation: CheckedContinuation<Void, Never>?
    private var wakePending = false
    private let clock = ContinuousClock()
    /// When the last renewal that succeeded was sent (or a claim made while nothing was held): every
    /// held lease runs until at least this instant plus the lease.
    private var leaseConfirmedAt: ContinuousClock.Instant?

    /// Creates a worker. Nothing happens until ``run()``.
    public init(queue: PostgresDownloadQueue, transports: TransportRegistry, configuration: Configuration,
                logger: Logger = Logger(label: "fdl.worker")) {
        self.queue = queue
        self.transports = transports
        self.configuration = configuration
        self.logger = logger
        self.owner = "\(configuration.node)/\(ProcessInfo.processInfo.processIdentifier)/\(UInt32.random(in: .min ... .max))"
    }

    /// Asks ``run()`` to stop: no more claims; running downloads are paused and their leases
    /// given back, then ``run()`` returns.
    public func stop() {
        stopping = true
        wake()
    }

    /// Runs the worker until ``stop()`` or cancellation (see the type's description).
    ///
    /// Without ``Configuration/sharedDirectory`` it takes, after preparing the queue, an exclusive lock on
    /// `.fdl-worker.lock` in ``Configuration/directory`` (creating both), held until it returns.
    ///
    /// - Throws: `DownloadError` `.invalidState` when this worker ran before, or another
    ///   non-shared worker holds the directory's lock; the `DownloadError` of
    ///   ``PostgresDownloadQueue/prepare()`` when the queue cannot be used at start. Nothing was
    ///   claimed then. Later failures of PostgreSQL are retried.
    public func run() async throws {
        guard !started else {
            throw DownloadError(.invalidState, "this FleetWorker already ran; make a new one")
        }
        started = true
        try await queue.prepare()
        let lock = configuration.sharedDirectory ? nil : try DirectoryLock(directory: configuration.directory)
        defer { withExtendedLifetime(lock) {} }
        var dc = configuration.downloader
        dc.maxConcurrentDownloads = configuration.capacity
        dc.downloadsDirectory = configuration.directory
        dc.resumeInterruptedOnRestore = false
        dc.followsExistingLinks = false  // names come from the queue, not from this node's user
        let store = LeasedStore(queue: queue, owner: owner, node: configuration.node,
                                sharedDirectory: configuration.sharedDirectory, patience: configuration.lease, logger: logger)
        let downloader = Downloader(configuration: dc, transports: transports, store: store, delegate: LeaseFence(worker: self))
        self.downloader = downloader
        let events = downloader.events()
        let listener = Task { [weak self] in
            for await event in events { await self?.handle(event) }
        }
        logger.info("worker started", metadata: ["owner": "\(owner)", "queue": "\(queue.endpoint)"])
        // The fence runs on its own timer, so a statement that hangs does not keep the
        // downloads going past half the lease.
        let fenceInterval = max(configuration.renewInterval / 2, .milliseconds(50))
        let fence = Task { [weak self] in
            while (try? await Task.sleep(for: fenceInterval)) != nil {
                guard let self else { return }
                await self.fenceIfOverdue()
            }
        }
        await withTaskCancellationHandler {
            await loop(downloader)
        } onCancel: {
            Task { await self.stop() }
        }
        fence.cancel()
        await wind(down: downloader)
        listener.cancel()
        self.downloader = nil
        logger.info("worker stopped", metadata: ["owner": "\(owner)"])
    }

    // MARK: the loop

    private func loop(_ downloader: Downloader) async {
        var nextRenewal = clock.now + configuration.renewInterval
        var failures = 0
        while !stopping {
            do {
                if clock.now >= nextRenewal {
                    let sent = clock.now
                    nextRenewal = sent + configuration.renewInterval
                    // Also run with nothing held: it gives back rows this worker stopped or
                    // whose claim reply it never saw.
                    // Downloads that finished locally lately are renewed too: their final write
                    // may not have reached the queue yet, and must not be given back before it does.
                    finishing = finishing.filter { $0.value.at + configuration.lease > sent }
                    var pairs = finishing.mapValues(\.claim)
                    for local in held { pairs[local.queueID] = local.claim }
                    let stillHeld = try await queue.renew(owner: owner, held: pairs, lease: configuration.lease)
                    leaseConfirmedAt = sent
                    let lost = held.filter { stillHeld[$0.queueID] != $0.claim }
                    if !lost.isEmpty { await drop(lost, because: "its lease was lost") }
                    if !stale.isEmpty { try await pruneStale() }
                }
                if !stopping, held.count < configuration.capacity {
                    let sent = clock.now
                    let free = configuration.capacity - held.count
                    let claimed = try await queue.claim(owner: owner, limit: free, lease: configuration.lease)
                    if held.isEmpty { leaseConfirmedAt = sent }
                    for claim in claimed { await start(claim, in: downloader) }
                    // A full batch: there may be more to claim at once (a partial one: the queue is empty).
                    if claimed.count == free, held.count < configuration.capacity { failures = 0; continue }
                }
                failures = 0
                await sleep(until: min(nextRenewal, clock.now + configuration.pollInterval))
            } catch {
                failures += 1
                let message = (error as? DownloadError)?.message ?? "\(error)"
                logger.warning("the queue cannot be used; trying again", metadata: ["error": "\(message)", "failures": "\(failures)"])
                // Meanwhile the fence timer stops the held downloads once half the lease passed.
                let backoff = RetryPolicy(initialDelay: .milliseconds(100), maxDelay: configuration.maxReconnectDelay, jitter: 0.2)
                await sleep(until: clock.now + backoff.delay(beforeRetry: failures, unit: Double.random(in: 0..<1)))
            }
        }
    }

    /// Stops every held download once half the lease passed since the last confirmed renewal:
    /// the others may claim them when the lease lapses, and by then this worker has let go.
    private func fenceIfOverdue() {
        guard !held.isEmpty, let confirmed = leaseConfirmedAt, clock.now >= confirmed + configuration.lease / 2 else { return }
        let overdue = held
        // Stale at once (see confirmBeforeMove), then stopped.
        for local in overdue { stale[local.queueID] = local }
        Task { await self.drop(overdue, because: "no renewal reached the queue for half the lease") }
        held.subtract(overdue)
    }

    /// The fence before download `raw`'s finished file is moved into place. Within half the
    /// lease after the last renewal that reached the queue, every held lease still runs for at
    /// least half of it (the queue extended each to at least that renewal's start plus the lease),
    /// so nobody else can hold the download and the move goes on without a statement. Later (the
    /// worker was frozen, or the queue stopped answering), it confirms in the queue, with one
    /// statement that extends that lease alone, that this worker still holds it.
    ///
    /// Throws, so that the library pauses the download with its file whole in staging, when the
    /// worker let the download go already, when the queue says another holds it now, or when the
    /// queue does not answer; in the last two cases the worker lets it go as for a lost lease (kept
    /// paused for whoever continues it; the next renewal gives the row back if it is still ours).
    func confirmBeforeMove(_ raw: String) async throws {
        guard let local = LocalID(raw), held.contains(local) else {
            throw DownloadError(.store, "this worker no longer holds the download; the file stays in staging")
        }
        let fresh = configuration.moveConfirmationAge ?? configuration.lease / 2
        if let confirmed = leaseConfirmedAt, clock.now < confirmed + fresh { return }
        let problem: String
        do {
            if try await queue.confirm(id: local.queueID, claim: local.claim, owner: owner, lease: configuration.lease) { return }
            problem = "its lease was lost before the file was moved"
        } catch {
            problem = "its lease could not be confirmed before the file was moved: \((error as? DownloadError)?.message ?? "\(error)")"
        }
        // Not awaited: stopping the download waits for this attempt, which waits for this call.
        // Kept as stale at once, so that a claim of the same row that comes first (the renewal
        // gives it back) finds it and lets the old local download go.
        if held.remove(local) != nil {
            stale[local.queueID] = local
            Task { await self.drop([local], because: problem) }
        }
        throw DownloadError(.store, "the file stays in staging: \(problem)")
    }

    /// Forgets the kept-paused local downloads whose queue row is finished (by another worker or
    /// an operator): nobody continues from their staging file any more. In a directory of its
    /// own the worker deletes that file; in a shared one it is not touched (the finishing worker
    /// moved or deleted it, and a newer download of that destination may write there now).
    private func pruneStale() async throws {
        let done = try await queue.finished(among: Array(stale.keys))
        for id in done {
            guard let local = stale.removeValue(forKey: id) else { continue }
            try? await downloader?.remove(local.rawValue, keepingStagingFile: configuration.sharedDirectory)
        }
    }

    private func start(_ claim: ClaimedDownload, in downloader: Downloader) async {
        let local = LocalID(queueID: claim.id, claim: claim.claim)
        // The local download a lost lease paused: forgotten, its staging file kept for this claim
        // (paused first: it may still be on its way to paused).
        if let old = stale.removeValue(forKey: claim.id) {
            _ = try? await downloader.pause(old.rawValue)
            try? await downloader.remove(old.rawValue, keepingStagingFile: true)
        }
        let destination = configuration.directory.appendingPathComponent(claim.destination).standardizedFileURL
        let partPath = destination.path + configuration.downloader.stagingSuffix
        let record = claim.record
        let reachable = claim.stagingPath == partPath
            && ((claim.stagingShared && configuration.sharedDirectory) || claim.node == configuration.node)
        held.insert(local)
        do {
            if let problem = QueuedDownload.problem(destination: claim.destination) {
                throw DownloadError(.invalidDestination, problem)
            }
            try DestinationParents.prepare(claim.destination, in: configuration.directory)
            if reachable, record.checkpointedBytes > 0 {
                try await downloader.start(id: local.rawValue, resumeData: ResumeData(
                    id: local.rawValue, url: record.url, destination: destination, partPath: partPath,
                    bytesOnDisk: record.checkpointedBytes, validator: record.validator,
                    expectedLength: record.expectedLength, options: record.options))
                logger.debug("continues a download", metadata: ["id": "\(claim.id)", "from": "\(record.checkpointedBytes)"])
            } else {
                try await downloader.start(id: local.rawValue, url: record.url, destination: destination, options: record.options)
            }
        } catch {
            held.remove(local)
            let failure = DownloadError.wrapping(error)
            logger.error("cannot start a claimed download", metadata: ["id": "\(claim.id)", "error": "\(failure.message)"])
            var failed = record
            failed.state = .failed
            failed.errorCode = failure.code.rawValue
            failed.errorMessages = failure.messages
            _ = try? await queue.update([.init(id: claim.id, claim: claim.claim, record: failed)], owner: owner,
                                        node: configuration.node, stagingShared: configuration.sharedDirectory)
        }
    }

    /// Stops local downloads whose lease is gone: each is paused and kept (``pruneStale()``), so
    /// its staging file stays for whoever continues it — this worker when it claims the download
    /// again, or with a shared directory any worker.
    private func drop(_ locals: Set<LocalID>, because reason: String) async {
        held.subtract(locals)
        guard let downloader else { return }
        for local in locals {
            // Forgotten meanwhile: a new claim of the same row let it go already.
            guard let state = await downloader.state(of: local.rawValue) else { continue }
            // A download that just finished (its final write ended the lease before this
            // renewal) is not lost: forget it.
            if Self.finished.contains(state) {
                if stale[local.queueID] == local { stale[local.queueID] = nil }
                finishing[local.queueID] = (local.claim, clock.now)
                try? await downloader.remove(local.rawValue)
                continue
            }
            logger.warning("stops a download: \(reason)", metadata: ["id": "\(local.queueID)"])
            _ = try? await downloader.pause(local.rawValue)
            stale[local.queueID] = local
        }
        wake()
    }

    /// The local states after which a download needs no lease.
    private static let finished: Set<DownloadState> = [.completed, .failed, .cancelled]

    private func handle(_ event: DownloadEvent) async {
        let raw: String
        switch event {
        case .completed(let id, _): raw = id
        case .failed(let id, _, _): raw = id
        case .cancelled(let id): raw = id
        default: return
        }
        guard let local = LocalID(raw), held.remove(local) != nil else { return }
        finishing[local.queueID] = (local.claim, clock.now)
        try? await downloader?.remove(raw)
        wake()
    }

    /// Pauses what runs (checkpoints are written under the still valid leases), forgets the lost
    /// downloads whose rows are finished, then gives the leases back so other workers can claim
    /// the downloads at once.
    private func wind(down downloader: Downloader) async {
        for local in held { _ = try? await downloader.pause(local.rawValue) }
        await downloader.settle()
        held.removeAll()
        // Lost downloads another worker finished leave no staging file behind.
        if !stale.isEmpty { try? await pruneStale() }
        do {
            try await queue.release(owner: owner)
        } catch {
            logger.warning("could not give the leases back; they lapse after the lease",
                           metadata: ["error": "\((error as? DownloadError)?.message ?? "\(error)")"])
        }
        await downloader.shutdown()
    }

    // MARK: waking

    private func wake() {
        if let continuation = wakeContinuation {
            wakeContinuation = nil
            continuation.resume()
        } else {
            wakePending = true
        }
    }

    private func sleep(until deadline: ContinuousClock.Instant) async {
        if wakePending || stopping { wakePending = false; return }
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            await self?.wake()
        }
        await withCheckedContinuation { wakeContinuation = $0 }
        timer.cancel()
    }
}
