import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        guard let store else { return RestoreReport() }
        let paging = store.pagesWaitingDownloads
        let records = paging ? try await store.loadAll(excluding: [.waiting, .completed, .cancelled]) : try await store.loadAll()
        // Read before anything changes: a store that cannot answer leaves everything as it was.
        let waitingInStore = paging ? try await store.waitingPartPaths() : []
        if paging {
            let last = try await store.lastQueueOrder()
            scheduler.nextQueueOrder = Swift.max(scheduler.nextQueueOrder, last?.successorSaturating ?? 0)
            pages.isActive = true
            pages.mayHoldWaiting = true
            pages.forgotFinished = true  // the finished downloads stay in the store, which answers for them
        }
        var report = RestoreReport()
        var toQueue: [String] = []
        for record in records where entries[record.id] == nil {
            scheduler.nextQueueOrder = Swift.max(scheduler.nextQueueOrder, record.queueOrder.successorSaturating)
            let e = reconcile(record, report: &report)
            entries[record.id] = e
            let rejected = report.rejected.last == record.id
            if !rejected { claim(e) }
            report.restored.append(record.id)
            if !rejected, record.state == .waiting || (e.state == .interrupted && configuration.resumeInterruptedOnRestore) {
                toQueue.append(record.id)
                if e.state == .interrupted { report.resumed.append(record.id) }
            }
        }
        report.removedOrphans = removeOrphanStagingFiles(alsoOwned: waitingInStore)
        for id in toQueue { requeue(id) }
        for id in report.restored { updateProgress(of: id) }
        refreshRootProgress(force: true)
        // The first page is read before anything starts, so the order of priority then queue
        // order holds from the first download on.
        if claimRefill() { await refill() } else { schedule() }
        return report
    }

    /// The entry `record` describes, reconciled with the disk (see ``restore()``): its paths
    /// checked first (a record that fails becomes `failed` and is listed in `report.rejected`),
    /// a completed file looked for, a staging file cut to the checkpoint, a download that was
    /// running made `interrupted`. A change is stored and announced.
    func reconcile(_ record: DownloadRecord, report: inout RestoreReport) -> DownloadEntry {
        var e = DownloadEntry(record: record)
        e.bytesOnDisk = 0
        let now = clock.now()
        var events: [DownloadEvent] = []
        if let problem = pathProblem(of: e) {
            e.lastError = DownloadError(.invalidDestination,
                                        "the stored download was refused and no file was touched: \(problem)")
            report.rejected.append(record.id)
            carryOut(e.lifecycle.restoredAsFailed(), on: &e, events: &events, now: now)
            persist(e, flush: nil, events: events)
            return e
        }
        var changed = false
        switch record.state {
        case .completed:
            e.bytesOnDisk = record.checkpointedBytes
            let size = FileValidation.size(ofFileAt: record.destination.path)
            if size == nil {
                carryOut(e.lifecycle.restoredAsFailed(), on: &e, events: &events, now: now)
                e.bytesOnDisk = 0
                e.segments = []
                e.validator = nil
                e.lastError = DownloadError(.fileSystem, "the completed file \(record.destination.path) is gone")
                report.vanished.append(record.id)
                changed = true
            } else if let expected = record.expectedLength, size != expected {
                report.modified.append(record.id)
            }
        case .cancelled:
            break
        case .downloading, .waiting, .interrupted, .paused, .failed, .notStarted:
            if Self.segmentsFit(record) {
                // Each segment continues from its own bytes: the file is kept as it is.
                e.segments = record.segments
                e.bytesOnDisk = record.segments.bytesDone
            } else {
                e.segments = []
                let prefix = record.segments.isEmpty ? record.checkpointedBytes : record.segments.contiguousPrefix
                let kept = cutStagingFile(record.partPath, to: prefix)
                let keep = kept ?? 0
                if kept == nil, prefix > 0 {
                    report.restartedFromZero.append(record.id)
                    changed = true
                }
                e.bytesOnDisk = keep
                if keep == 0 { e.validator = nil }
            }
            if record.state == .downloading {
                carryOut(e.lifecycle.restoredAfterCrash(), on: &e, events: &events, now: now)
                e.lastError = DownloadError(.connectionLost, "the process stopped during the download")
                changed = true
            }
        }
        if changed {
            // A transition announces itself; bytes restarted from zero announce the state as it is.
            persist(e, flush: nil, events: events.isEmpty ? [.stateChanged(id: e.id, state: e.state)] : events)
        }
        return e
    }

    /// Cuts the staging file at `path` to at most `limit` bytes through a descriptor opened with
    /// ``StagingFile/reopen(_:)`` (which also gives back space reserved past the end by a process
    /// that died); the bytes kept, or `nil` when there is no trustworthy file (an entry that
    /// failed the check was removed).
    func cutStagingFile(_ path: String, to limit: Int64) -> Int64? {
        guard let fd = StagingFile.reopen(path) else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let keep = min(limit, Int64(st.st_size))
        guard ftruncate(fd, off_t(keep)) == 0 else { return nil }
        return keep
    }

    /// Removes `*<stagingSuffix>` files in the downloads directory that no download owns.
    /// `alsoOwned`: the staging files of downloads left in the store.
    func removeOrphanStagingFiles(alsoOwned: Set<String>) -> [String] {
        let directory = configuration.downloadsDirectory.standardizedFileURL.path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let owned = Set(entries.values.map(\.partPath)).union(alsoOwned)
        var removed: [String] = []
        for name in names where name.hasSuffix(configuration.stagingSuffix) {
            let path = (directory as NSString).appendingPathComponent(name)
            if !owned.contains(path) {
                StagingFile.remove(path)
                removed.append(path)
            }
        }
        return removed.sorted()
    }

    /// Whether the stored segments of `record` can be continued: a strong validator, the length
    /// they cover, and a staging file (a regular file of ours) holding every byte they say is done.
    static func segmentsFit(_ record: DownloadRecord) -> Bool {
        segmentsFit(record.segments, validator: record.validator, length: record.expectedLength, partPath: record.partPath)
    }

    /// Whether `segments` (of a record or of resume data) can be continued in `partPath`.
    static func segmentsFit(_ segments: [SegmentCheckpoint], validator: Validator?, length: Int64?, partPath: String) -> Bool {
        guard !segments.isEmpty, validator?.isStrong == true,
              let length, segments.map(\.end).max() == length,
              let fd = StagingFile.reopen(partPath) else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return segments.allSatisfy { $0.done == 0 || $0.next <= Int64(st.st_size) }
    }
}
