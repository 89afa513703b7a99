import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Downloader {
    /// Loads every download from the store and reconciles it with the files on disk.
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
    ///   reached the disk intact), through a descriptor opened as ``TransferSink`` opens it (never
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
    /// - Throws: the store's ``DownloadError`` (code ``DownloadError/Code/store``) when it cannot be
    ///   read; nothing is changed then.
    @discardableResult
    public func restore() async throws -> RestoreReport {
        try checkAccepting()
        guard let store else { return RestoreReport() }
        let records = try await store.loadAll()
        var report = RestoreReport()
        var toQueue: [String] = []
        for record in records where entries[record.id] == nil {
            var e = DownloadEntry(
                id: record.id, url: record.url, destination: record.destination, partPath: record.partPath,
                options: record.options, state: record.state, queueOrder: record.queueOrder
            )
            e.validator = record.validator
            e.expectedLength = record.expectedLength
            e.attempts = record.attempts
            e.createdAt = record.createdAt
            if let code = record.errorCode {
                var error = DownloadError(DownloadError.Code(rawValue: code), record.errorMessages.first ?? code)
                error.messages = record.errorMessages.isEmpty ? [code] : record.errorMessages
                e.lastError = error
            }
            nextQueueOrder = max(nextQueueOrder, record.queueOrder.successorSaturating)
            if let problem = pathProblem(of: e) {
                e.state = .failed
                e.lastError = DownloadError(.invalidDestination,
                                            "the stored download was refused and no file was touched: \(problem)")
                entries[record.id] = e
                report.rejected.append(record.id)
                report.restored.append(record.id)
                persist(e, flush: nil, events: [.stateChanged(id: e.id, state: e.state)])
                continue
            }
            var changed = false
            switch record.state {
            case .completed:
                e.bytesOnDisk = record.checkpointedBytes
                let size = FileValidation.size(ofFileAt: record.destination.path)
                if size == nil {
                    e.state = .failed
                    e.bytesOnDisk = 0
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
                let kept = cutStagingFile(record.partPath, to: record.checkpointedBytes)
                let keep = kept ?? 0
                if kept == nil, record.checkpointedBytes > 0 {
                    report.restartedFromZero.append(record.id)
                    changed = true
                }
                e.bytesOnDisk = keep
                if keep == 0 { e.validator = nil }
                if record.state == .downloading {
                    e.state = .interrupted
                    e.lastError = DownloadError(.connectionLost, "the process stopped during the download")
                    changed = true
                }
                if record.state == .waiting
                    || (e.state == .interrupted && configuration.resumeInterruptedOnRestore) {
                    toQueue.append(record.id)
                    if e.state == .interrupted { report.resumed.append(record.id) }
                }
            }
            entries[record.id] = e
            claim(e)
            report.restored.append(record.id)
            if changed {
                persist(e, flush: nil, events: [.stateChanged(id: e.id, state: e.state)])
            }
        }
        report.removedOrphans = removeOrphanStagingFiles()
        for id in toQueue { enqueue(id, events: []) }
        for id in report.restored { updateProgress(of: id) }
        refreshRootProgress(force: true)
        schedule()
        return report
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
    func removeOrphanStagingFiles() -> [String] {
        let directory = configuration.downloadsDirectory.standardizedFileURL.path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let owned = Set(entries.values.map(\.partPath))
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
}
