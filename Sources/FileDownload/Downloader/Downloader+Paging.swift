import Foundation

/// Waiting downloads left in a paging store (``DownloadStore/pagesWaitingDownloads``): the
/// downloader keeps at most ``residentWaitingLimit`` waiting downloads in memory once
/// ``restore()`` ran, and reads the next ones from the store (``DownloadStore/nextWaiting(limit:)``)
/// as slots free up, reconciling each with the disk then.
extension Downloader {
    /// How many waiting downloads stay in memory before more are left in the store.
    var residentWaitingLimit: Int { Swift.max(64, configuration.maxConcurrentDownloads * 2) }

    /// Whether `e`, just made waiting, may be left in the store instead of memory: paging is on,
    /// the queue in memory is full, `e` runs after everything in it (so the order of priority then
    /// queue order holds), and nothing of `e` lives only in memory (secrets, a mirror being
    /// tried, an expiring URL, a `Progress`, a caller awaiting its outcome, retries counted).
    func mayLeaveInStore(_ e: DownloadEntry) -> Bool {
        guard scheduler.pages.isActive, scheduler.queue.count >= residentWaitingLimit,
              scheduler.queue.runsAfterAll(priority: e.options.priority, order: e.queueOrder, id: e.id) else { return false }
        return Persistence.storeHoldsAll(of: e) && !outcomeWaiters.hasWaiters(for: e.id)
    }

    /// Forgets waiting `e` in memory; its save is already posted, so the store holds it.
    func leaveInStore(_ e: DownloadEntry) {
        forgetInMemory(e)
        scheduler.pages.leave(e.id)
        scheduler.pages.mayHoldWaiting = true
    }

    /// Drops `e` from memory with its claims on its paths (the store keeps its record).
    private func forgetInMemory(_ e: DownloadEntry) {
        entries[e.id] = nil
        for path in [e.destinationPath, e.partPath] where claimedPaths[path] == e.id { claimedPaths[path] = nil }
    }

    /// How many completed or cancelled downloads stay in memory once paging is on: the newest,
    /// so that a caller that asks about a download it was just told of finds it there.
    var finishedKeptInMemory: Int { 1024 }

    /// Forgets in memory the oldest completed and cancelled downloads beyond
    /// ``finishedKeptInMemory`` (their records are saved: the store answers for them, and a call
    /// that acts on one pages it in), unless something of them lives only in memory (a
    /// `Progress`, a caller awaiting its outcome).
    func forgetFinished() {
        guard scheduler.pages.finished.count >= 2 * finishedKeptInMemory else { return }
        let old = scheduler.pages.finished.prefix(scheduler.pages.finished.count - finishedKeptInMemory)
        scheduler.pages.finished.removeFirst(old.count)
        for id in old {
            guard let e = entries[id], e.state == .completed || e.state == .cancelled, e.attempt == nil,
                  e.nativeProgress == nil, !outcomeWaiters.hasWaiters(for: id) else { continue }
            forgetInMemory(e)
            scheduler.pages.leave(id)
            scheduler.pages.forgotFinished = true
        }
        // Once the saves posted so far have landed, the store answers for those ids.
        landedAfterWrites(upTo: scheduler.pages.parkSequence)
    }

    /// The saves of the downloads left in the store up to `sequence` have landed.
    func landed(upTo sequence: UInt64) {
        scheduler.pages.saved(upTo: sequence)
    }

    /// Calls ``landed(upTo:)`` once the writes posted so far are done.
    func landedAfterWrites(upTo sequence: UInt64) {
        persistence.afterWrites { [weak self] in Task { await self?.landed(upTo: sequence) } }
    }

    /// Download `id` was removed: until the removal has reached the store, a question about `id`
    /// waits for it (the store still holds the record).
    func removedFromMemory(_ id: String) {
        if scheduler.pages.refilling { scheduler.pages.removedDuringRefill.insert(id) }
        guard scheduler.pages.isActive else { return }
        landedAfterWrites(upTo: scheduler.pages.leave(id))
    }

    /// Starts a refill when the store may hold waiting downloads and fewer than half of
    /// ``residentWaitingLimit`` wait in memory.
    func refillIfLow() {
        guard claimRefill() else { return }
        Task { await self.refill() }
    }

    /// Claims the one refill that may run: `false` when one runs, none is needed, or the store
    /// holds no waiting download left there.
    func claimRefill() -> Bool {
        guard scheduler.pages.isActive, scheduler.pages.mayHoldWaiting, !scheduler.pages.refilling, !isShutDown,
              scheduler.queue.count < residentWaitingLimit / 2 else { return false }
        scheduler.pages.refilling = true
        scheduler.pages.removedDuringRefill = []
        return true
    }

    /// Reads the next waiting downloads from the store (after every write posted so far has
    /// landed) and queues those not in memory, reconciled with the disk as ``restore()`` does;
    /// then schedules. A store that cannot be read is logged, and asked again at the next
    /// scheduling. Only after ``claimRefill()`` returned `true`.
    func refill() async {
        let sequence = scheduler.pages.parkSequence
        await persistence.drain()
        scheduler.pages.saved(upTo: sequence)
        let limit = residentWaitingLimit + scheduler.queue.count
        let records: [DownloadRecord]
        do {
            records = try await persistence.nextWaiting(limit: limit)
        } catch {
            logger.error("the store could not list the waiting downloads", metadata: ["error": "\(error)"])
            scheduler.pages.refilling = false
            return
        }
        scheduler.pages.refilling = false
        guard !isShutDown else { return }
        for record in records where entries[record.id] == nil && !scheduler.pages.removedDuringRefill.contains(record.id) {
            adoptWaiting(record)
        }
        if records.count < limit, scheduler.pages.parkSequence == sequence { scheduler.pages.mayHoldWaiting = false }
        schedule()
    }

    /// Takes `record` from the store into memory. A completed or cancelled record is taken as it
    /// is: no file is looked at or touched and no path claimed (a newer download may write there);
    /// its paths are checked as ``restore()`` checks them, and a record that fails is failed.
    /// An unfinished one whose paths another unfinished download claims by now fails with
    /// ``DownloadError/Code/invalidDestination`` before any file is touched; any other is checked
    /// and reconciled as ``restore()`` does, then, when it is waiting, queued without a new save
    /// or event (it was waiting already).
    func adoptWaiting(_ record: DownloadRecord) {
        if record.state.isTerminal {
            var e = DownloadEntry(record: record)
            if pathProblem(of: e) != nil {
                entries[e.id] = carryOut(RestoreRules.reconcile(record, stagingSuffix: configuration.stagingSuffix))  // failed; no file touched
                return
            }
            e.bytesOnDisk = record.state == .completed ? record.checkpointedBytes : 0
            entries[e.id] = e
            if scheduler.pages.isActive { scheduler.pages.finished.append(e.id) }  // it may leave memory again
            return
        }
        if (try? checkUnclaimed(destination: record.destination.path, partPath: record.partPath)) == nil {
            var e = DownloadEntry(record: record)
            e.bytesOnDisk = 0
            e.lastError = DownloadError(.invalidDestination,
                                        "another download writes to \(e.destination.path) or its staging file; no file was touched")
            var events: [DownloadEvent] = []
            carryOut(e.lifecycle.restoredAsFailed(), on: &e, events: &events, now: clock.now())
            entries[e.id] = e
            persist(e, flush: nil, events: events)
            return
        }
        let restored = RestoreRules.reconcile(record, stagingSuffix: configuration.stagingSuffix)
        var e = carryOut(restored)
        entries[e.id] = e
        if restored.finding != .rejected { claim(e) }
        guard e.state == .waiting else { return }
        armExpiry(&e, now: clock.now())
        entries[e.id] = e
        scheduler.queue.push(id: e.id, priority: e.options.priority, order: e.queueOrder)
    }

    /// The record of `id` when it is a download left in the store (waiting, or finished and
    /// forgotten in memory), else `nil`.
    ///
    /// - Throws: ``DownloadError/Code/store`` when the store cannot be read.
    func recordInStore(_ id: String) async throws -> DownloadRecord? {
        guard entries[id] == nil, scheduler.pages.isActive, scheduler.pages.mayHoldOthers else { return nil }
        let record = try await persistence.record(id, afterWrites: scheduler.pages.unsaved[id] != nil)
        return entries[id] == nil ? record : nil
    }

    /// ``recordInStore(_:)`` for a question that cannot throw: a store that cannot be read is
    /// logged and answers `nil`.
    func recordInStoreOrLog(_ id: String) async -> DownloadRecord? {
        do {
            return try await recordInStore(id)
        } catch {
            logger.error("the store could not be read", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Brings download `id` into memory when it is left in the store, so that a call can act on it.
    ///
    /// - Throws: ``DownloadError/Code/store`` when the store cannot be read.
    func pageIn(_ id: String) async throws {
        guard let record = try await recordInStore(id), entries[id] == nil else { return }
        adoptWaiting(record)
    }

    /// Throws ``DownloadError/Code/duplicateIdentifier`` when a download left in the store has `id`,
    /// ``DownloadError/Code/store`` when the store cannot tell.
    func checkNotInStore(id: String) async throws {
        guard let known = try await recordInStore(id) else { return }
        throw DownloadError(.duplicateIdentifier,
                            "a download with the id '\(id)' already exists (\(known.state)); remove it first to reuse the id")
    }

    /// Throws ``DownloadError/Code/invalidDestination`` when an unfinished download left in the
    /// store writes to `destination` or `partPath` (its destination or its staging file),
    /// ``DownloadError/Code/store`` when the store cannot tell. Only downloads not in memory are
    /// asked about: ``checkUnclaimed(destination:partPath:)`` answers for the others.
    func checkUnclaimedInStore(destination: String, partPath: String) async throws {
        guard scheduler.pages.isActive, scheduler.pages.mayHoldWaiting else { return }
        let owner = try await persistence.unfinishedOwner(destination: destination, partPath: partPath)
        if let owner, entries[owner] == nil {
            throw DownloadError(.invalidDestination,
                                "the download '\(owner)' already writes to \(destination) or its staging file")
        }
    }
}
