extension Downloader {
    /// Loads the downloads from the store (every one, or with a paging store those neither waiting
    /// nor finished) and reconciles them with the files on disk.
    ///
    /// In order, for each stored download (in queue order):
    /// - first its paths are checked, before anything is done with them: the destination must be
    ///   an absolute, standardized file path without NUL, and the staging path exactly the
    ///   destination's plus ``DownloaderConfiguration/stagingSuffix``. A record that fails becomes
    ///   `failed` (``DownloadError/Code/invalidDestination``, listed in ``RestoreReport/rejected``)
    ///   and no file is touched, now or later;
    /// - `downloading` (the process died during it) becomes `interrupted`, and is queued again when
    ///   ``DownloaderConfiguration/resumeInterruptedOnRestore`` is on (as are `interrupted` ones);
    /// - `waiting` is queued again in its original order; `paused`, `failed` and `notStarted` stay so;
    /// - for all of those, the bytes kept are min(checkpointed bytes, staging file length): the
    ///   staging file is cut to that length (bytes written after the last checkpoint may not have
    ///   reached the disk intact), through a descriptor opened as an attempt opens it (never
    ///   through a link; a staging file that is not a regular file of this user with one link is
    ///   removed instead); a staging file that is gone or removed means a start from zero;
    /// - `completed` whose file is gone becomes `failed` (reported in ``RestoreReport/vanished``);
    ///   one whose size changed is reported in ``RestoreReport/modified`` and stays completed.
    /// Then staging files (`*<stagingSuffix>`) in the downloads directory that belong to no download
    /// are removed (files and links only, never a directory), the changes are stored, and queued
    /// downloads start.
    ///
    /// Downloads already known to this downloader are left alone. Without a store it does nothing.
    ///
    /// With a store that pages (``DownloadStore/pagesWaitingDownloads``, such as the SQLite store)
    /// the `waiting` records are not read here: they stay in the store, are not listed in
    /// ``RestoreReport/restored``, and are read a page at a time as slots free up (priority, then
    /// queue order), each reconciled with the disk as above when it is read. Their staging files
    /// count as owned. From then on at most `max(64, 2 × maxConcurrentDownloads)` waiting downloads are kept in
    /// memory; more are left in the store, and listing and counting ask the store. The
    /// `completed` and `cancelled` records are not read either: the store answers for them as
    /// they were stored, and a call that acts on one reads it then. Their files are not looked
    /// at, so ``RestoreReport/vanished`` and ``RestoreReport/modified`` stay empty (a store of a
    /// million completed downloads is not read, nor a million files looked at, at every start).
    ///
    /// - Throws: the store's ``DownloadError`` (code ``DownloadError/Code/store``) when it cannot be
    ///   read; nothing is changed then.
    @discardableResult
    public func restore() async throws -> RestoreReport {
        try checkAccepting()
        guard persistence.hasStore else { return RestoreReport() }
        // Read before anything changes: a store that cannot answer leaves everything as it was.
        let stored = try await persistence.loadForRestore()
        await loadRememberedHosts()
        if persistence.pagesWaiting {
            scheduler.nextQueueOrder = Swift.max(scheduler.nextQueueOrder, stored.lastQueueOrder?.successorSaturating ?? 0)
            scheduler.pages.isActive = true
            scheduler.pages.mayHoldWaiting = true
            scheduler.pages.forgotFinished = true  // the finished downloads stay in the store, which answers for them
        }
        var report = RestoreReport()
        var toQueue: [String] = []
        for record in stored.records where entries[record.id] == nil {
            scheduler.nextQueueOrder = Swift.max(scheduler.nextQueueOrder, record.queueOrder.successorSaturating)
            let restored = RestoreRules.reconcile(record, stagingSuffix: configuration.stagingSuffix)
            restored.note(in: &report)
            let e = carryOut(restored)
            entries[record.id] = e
            let rejected = restored.finding == .rejected
            if !rejected { claim(e) }
            report.restored.append(record.id)
            if !rejected, record.state == .waiting || (e.state == .interrupted && configuration.resumeInterruptedOnRestore) {
                toQueue.append(record.id)
                if e.state == .interrupted { report.resumed.append(record.id) }
            }
        }
        report.removedOrphans = RestoreRules.removeOrphanStagingFiles(
            in: configuration.downloadsDirectory, stagingSuffix: configuration.stagingSuffix,
            owned: Set(entries.values.map(\.partPath)).union(stored.waitingPartPaths))
        for id in toQueue { requeue(id) }
        for id in report.restored { updateProgress(of: id) }
        refreshRootProgress(force: true)
        // The first page is read before anything starts, so the order of priority then queue
        // order holds from the first download on.
        if claimRefill() { await refill() } else { schedule() }
        return report
    }

    /// Carries out what the lifecycle of a reconciled download returned, and stores and
    /// announces it when it changed (a transition announces itself; bytes restarted from zero
    /// announce the state as it is). Returns the entry.
    func carryOut(_ restored: RestoreRules.Restored) -> DownloadEntry {
        var e = restored.entry
        var events: [DownloadEvent] = []
        if !restored.actions.isEmpty { carryOut(restored.actions, on: &e, events: &events, now: clock.now()) }
        if restored.changed {
            persist(e, flush: nil, events: events.isEmpty ? [.stateChanged(id: e.id, state: e.state)] : events)
        }
        return e
    }

    /// Whether `segments` (of a record or of resume data) can be continued in `partPath`
    /// (``RestoreRules/segmentsFit(_:validator:length:partPath:)``; for the attempts).
    static func segmentsFit(_ segments: [SegmentCheckpoint], validator: Validator?, length: Int64?, partPath: String) -> Bool {
        RestoreRules.segmentsFit(segments, validator: validator, length: length, partPath: partPath)
    }
}
