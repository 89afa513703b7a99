extension DownloadStore {
    /// Applies `control` to stored download `id` when no ``Downloader`` runs over the store, with
    /// the rule a `Downloader` applies (the download's state machine, `DownloadLifecycle`), so
    /// that a front end changes no state itself.
    ///
    /// In order: reads the record; a download stored as `downloading` (its process died) is
    /// `interrupted` first, as ``Downloader/restore()`` makes it; then the trigger: ``StoredControl/pause``
    /// makes a waiting or interrupted download paused (a paused one stays paused);
    /// ``StoredControl/cancel`` makes any unfinished download cancelled and deletes its staging
    /// file. The record is saved when it changed. Returns it as stored.
    ///
    /// The caller keeps other processes out (holds the lock of the store's directory). The staging
    /// file is deleted only when the record's paths pass the check a `Downloader` makes before it
    /// touches a file (`DownloadPaths`, with `stagingSuffix`, the suffix of the `Downloader`s that
    /// use the store).
    ///
    /// - Throws: ``DownloadError/Code/unknownIdentifier`` when the store has no download `id`;
    ///   ``DownloadError/Code/invalidState`` when its state refuses the request (a completed or
    ///   cancelled one; pause of one not started or failed), nothing changed;
    ///   ``DownloadError/Code/fileSystem`` when the staging file cannot be deleted, and
    ///   ``DownloadError/Code/invalidDestination`` when the record's paths fail the check, nothing
    ///   saved; the store's errors.
    package func apply(_ control: StoredControl, toStored id: String,
                       stagingSuffix: String = ".part") async throws -> DownloadRecord {
        guard let record = try await record(id: id) else {
            throw DownloadError(.unknownIdentifier, "no download has the id '\(id)'")
        }
        var e = DownloadEntry(record: record)
        let restored = e.lifecycle.restoredAfterCrash()
        let actions = switch control {
        case .pause: e.lifecycle.pause(resumeData: e.resumeData())
        case .cancel: e.lifecycle.cancel()
        }
        var changed = !restored.isEmpty
        for action in actions {
            switch action {
            case .reject(let error):
                throw error
            case .discardBytes:
                if let problem = DownloadPaths.problem(destination: e.destination, partPath: e.partPath,
                                                       stagingSuffix: stagingSuffix) {
                    throw DownloadError(.invalidDestination, "the stored download '\(id)' was not changed: \(problem)")
                }
                try StagingFile.removeFile(e.partPath)
                e.forgetBytes()
                changed = true
            case .send(let events):
                changed = changed || !events.isEmpty
            case .enqueue, .startAttempt, .stopAttempt, .watch, .unwatch, .endWait, .wakeUp, .countRetriesAnew,
                 .askForFreshURL:
                break  // nothing runs, waits or is queued here: a later run restores the stored state
            }
        }
        guard changed else { return record }
        let updated = e.record()
        try await save(updated)
        return updated
    }
}
