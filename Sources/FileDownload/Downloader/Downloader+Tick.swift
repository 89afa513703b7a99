import Foundation

extension Downloader {
    /// Runs ``tick()`` every progress interval on the downloader's clock while anything runs or
    /// waits for a retry.
    func ensureTicking() {
        guard tickTask == nil, !isShutDown else { return }
        let interval = configuration.progressInterval
        let clock = self.clock
        tickTask = Task { [weak self] in
            var next = clock.now() + interval
            while !Task.isCancelled {
                do { try await clock.sleepUntil(next) } catch { return }
                guard let self, await self.tickAndContinue() else { return }
                next = max(next + interval, clock.now())
            }
        }
    }

    /// One tick; `false` (and the loop ends) when nothing needs ticking any more.
    func tickAndContinue() -> Bool {
        tick()
        if scheduler.running.isEmpty && retrying.isEmpty && !waitsForHost {
            tickTask = nil
            return false
        }
        return true
    }

    /// Samples every running download: head, progress, speed, idle and resource timeouts,
    /// checkpoints; starts due retries; emits the total.
    func tick() {
        let now = clock.now()
        applyBandwidthSchedule(at: now)
        var events: [DownloadEvent] = []
        for id in scheduler.running {
            guard var e = entries[id], let handle = e.attempt else { continue }
            let sink = handle.currentSink
            if let sink { absorbHead(&e, sink: sink, events: &events) }
            let board = handle.segments
            let segmented = board.isActive
            let activity = segmented ? board.activity : sink?.activityCount ?? 0
            // A transfer waiting out its share of the bandwidth limit is not idle.
            let paced = sink.map { $0.pacingDelay > .zero } ?? false
            if activity != e.lastActivityCount || paced || handle.challengesInFlight.load(ordering: .relaxed) > 0 {
                e.lastActivityCount = activity
                e.lastActivityAt = now
            } else if now - e.lastActivityAt >= e.options.transfer.requestTimeout {
                requestStop(id, handle, .fail(DownloadError(
                    .timedOut, "no data arrived for \(e.options.transfer.requestTimeout) (the request timeout)")))
            }
            if e.activeTime + (now - handle.startedAt) >= e.options.transfer.resourceTimeout {
                requestStop(id, handle, .fail(Self.resourceTimeoutError(e.options.transfer.resourceTimeout)))
            }
            if let sink {
                let received = segmented ? board.received : sink.fileLength
                e.speed.sample(bytes: received, at: now)
                recordHostBytes(id, fileLength: received, now: now)
                if persistence.hasStore, now - e.lastCheckpointAt >= configuration.checkpointInterval,
                   received != e.lastCheckpointBytes, e.headSeen {
                    e.lastCheckpointAt = now
                    e.lastCheckpointBytes = received
                    // The segments are read before the flush: every byte counted is on disk when it is stored.
                    persistence.checkpoint(id, sink: sink, segments: segmented ? board.checkpoints() : nil, validator: e.validator)
                }
            }
            emitProgress(&e, now: now, force: false, events: &events)
            entries[id] = e
            updateNativeProgress(e)
        }
        endOverdueWaits(now: now)
        for id in retrying {
            if let e = entries[id], e.lifecycle.hold != nil { continue }  // on hold
            guard var e = entries[id], e.lifecycle.retryDue != nil else {
                retrying.remove(id)
                continue
            }
            var retried: [DownloadEvent] = []
            if carryOut(e.lifecycle.retryDue(now: now), on: &e, events: &retried, now: now).enqueue {
                enqueue(e, events: retried)
            }
        }
        releaseHeld(now: now)
        scheduler.hosts.forgetIdle(now: now)
        if !freshURLs.expiring.isEmpty { askForExpiringURLs(now: now) }
        let total = emitTotal(now: now, force: false, events: &events)
        if !events.isEmpty { persistence.publish(events) }
        refreshRootProgress(force: true, total: total)
        schedule()
        wakeSegments()
    }

    /// Appends a ``DownloadEvent/totalProgress(_:)`` event when the total changed and the
    /// throttle allows, or when `force` (a download completed and nothing is active any more, so
    /// the total is final); returns the total.
    @discardableResult
    func emitTotal(now: Duration, force: Bool, events: inout [DownloadEvent]) -> TotalProgress {
        let total = computeTotal(now: now)
        if total != lastTotal, force || totalIsDue(at: now) {
            lastTotal = total
            lastTotalAt = now
            events.append(.totalProgress(total))
        }
        return total
    }

    /// Whether a ``DownloadEvent/totalProgress(_:)`` may go out at `now`: none went out yet, or
    /// the last one is at least ``DownloaderConfiguration/progressInterval`` old.
    func totalIsDue(at now: Duration) -> Bool {
        lastTotalAt.map { now - $0 >= configuration.progressInterval } ?? true
    }

    /// Takes what the head of the running attempt says (once per attempt): validator, size, restart.
    func absorbHead(_ e: inout DownloadEntry, sink: TransferSink, events: inout [DownloadEvent]) {
        guard !e.headSeen, let head = sink.head else { return }
        e.headSeen = true
        serverAnswered(e)
        e.lifecycle.serverAnswered()  // the way works: a later wait for the network starts a new stretch
        e.validator = head.validator
        if let validator = head.validator, !validator.isStrong {
            // A weak validator (FTP's size alone from a server without MDTM, a W/ ETag) cannot show
            // that bytes on disk are of this version: the download does not resume on it.
            logger.notice("""
                download '\(e.id)': the server gives only a weak validator (\(validator.kind.rawValue)); \
                an interrupted attempt starts again from zero
                """,
                metadata: ["id": "\(e.id)", "validator": "\(validator.kind.rawValue)"])
        }
        if e.suggestedFileName == nil { e.suggestedFileName = head.suggestedFilename }
        if let total = head.expectedLength { e.expectedLength = total }
        if case .restarted(let reason) = head.disposition, sink.requestedOffset > 0 {
            e.lastEmitted = nil
            e.speed.reset()
            events.append(.restarted(id: e.id, reason: reason))
        }
    }

    /// Emits a progress event when the bytes changed and the throttle allows (or `force`).
    func emitProgress(_ e: inout DownloadEntry, now: Duration, force: Bool, events: inout [DownloadEvent]) {
        var progress = e.progress()
        if force, let expected = progress.expectedBytes { progress.receivedBytes = expected }
        if force {
            progress.bytesPerSecond = e.speed.bytesPerSecond
            progress.estimatedTimeRemaining = .zero
        }
        let changed = progress.receivedBytes != e.lastEmitted?.receivedBytes
            || progress.expectedBytes != e.lastEmitted?.expectedBytes
        let due = e.lastEmittedAt.map { now - $0 >= configuration.progressInterval } ?? true
        guard force || (changed && due) else { return }
        if let last = e.lastEmitted, progress.receivedBytes < last.receivedBytes { return }
        e.lastEmitted = progress
        e.lastEmittedAt = now
        events.append(.progress(id: e.id, progress))
    }

    /// Σ over downloads that are not cancelled: the settled sum the entry table keeps, plus the
    /// live downloads (those with an attempt), a pass over those only.
    func computeTotal(now: Duration) -> TotalProgress {
        var share = entries.settled
        var total = TotalProgress()
        for id in entries.live {
            guard let e = entries[id] else { continue }
            share += EntryTable.Share(e)
            if e.state != .cancelled { total.bytesPerSecond += e.progress().bytesPerSecond }
        }
        total.receivedBytes = share.receivedBytes
        total.expectedBytes = share.expectedBytes
        total.receivedOfKnownSize = share.receivedOfKnownSize
        total.unknownSizeCount = share.unknownSizeCount
        total.activeCount = share.activeCount
        if total.bytesPerSecond > 0, total.expectedBytes > 0 {
            let left = Double(max(0, total.expectedBytes - total.receivedOfKnownSize)) / total.bytesPerSecond
            total.estimatedTimeRemaining = .milliseconds(Int64(left * 1000))
        }
        return total
    }

    /// Brings the `Foundation.Progress` of `id` up to date, and the root's when it is due. Only
    /// ever from the actor: concurrent updates of `completedUnitCount` lose increments on Linux.
    func updateProgress(of id: String) {
        if let e = entries[id] { updateNativeProgress(e) }
        refreshRootProgress(force: scheduler.running.isEmpty)
    }

    func updateNativeProgress(_ e: DownloadEntry) {
        guard let native = e.nativeProgress else { return }
        let p = e.progress()
        Self.set(native, total: p.expectedBytes ?? -1, completed: p.receivedBytes)
    }

    /// Sets the root progress from the total (``computeTotal(now:)``, a pass over every download)
    /// at most once per progress interval, or now when `force`; `total` saves the pass when the
    /// caller has just made it.
    func refreshRootProgress(force: Bool, total: TotalProgress? = nil) {
        let now = clock.now()
        if !force, let last = lastRootUpdate, now - last < configuration.progressInterval { return }
        lastRootUpdate = now
        let total = total ?? computeTotal(now: now)
        Self.set(rootProgress, total: total.expectedBytes, completed: total.receivedOfKnownSize)
    }

    /// Sets both counts, working around swift-corelibs-foundation, which traps when a
    /// `totalUnitCount` is set to 0 after it was not: an unknown or empty total becomes -1
    /// (indeterminate) instead.
    static func set(_ progress: Progress, total: Int64, completed: Int64) {
        let total = total > 0 ? total : -1
        let completed = total > 0 ? min(completed, total) : completed
        if progress.totalUnitCount != total {
            if progress.completedUnitCount != 0 { progress.completedUnitCount = 0 }
            progress.totalUnitCount = total
        }
        if progress.completedUnitCount != completed { progress.completedUnitCount = completed }
    }
}
