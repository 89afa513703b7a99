import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Downloader {
    /// Loads every download from the store and reconciles it with the files on disk.
    ///
    /// In order, for each stored download (in queue order):
    /// - `downloading` (the process died during it) becomes `interrupted`, and is queued again when
    ///   ``DownloaderConfiguration/resumeInterruptedOnRestore`` is on (as are `interrupted` ones);
    /// - `waiting` is queued again in its original order; `paused`, `failed` and `notStarted` stay so;
    /// - for all of those, the bytes kept are min(checkpointed bytes, staging file length): the
    ///   staging file is cut to that length (bytes written after the last checkpoint may not have
    ///   reached the disk intact); a staging file that is gone means a start from zero;
    /// - `completed` whose file is gone becomes `failed` (reported in ``RestoreReport/vanished``);
    ///   one whose size changed is reported in ``RestoreReport/modified`` and stays completed.
    /// Then staging files (`*<stagingSuffix>`) in the downloads directory that belong to no download
    /// are removed, the changes are stored, and queued downloads start.
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
            nextQueueOrder = max(nextQueueOrder, Self.order(after: record.queueOrder))
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
                let onDisk = FileValidation.size(ofFileAt: record.partPath)
                let keep = min(record.checkpointedBytes, onDisk ?? 0)
                if onDisk == nil, record.checkpointedBytes > 0 {
                    report.restartedFromZero.append(record.id)
                    changed = true
                }
                if let onDisk, onDisk > keep { truncate(record.partPath, off_t(keep)) }
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
            partWriters[record.partPath] = record.id
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

    /// Removes `*<stagingSuffix>` files in the downloads directory that no download owns.
    func removeOrphanStagingFiles() -> [String] {
        let directory = configuration.downloadsDirectory.standardizedFileURL.path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let owned = Set(entries.values.map(\.partPath))
        var removed: [String] = []
        for name in names where name.hasSuffix(configuration.stagingSuffix) {
            let path = (directory as NSString).appendingPathComponent(name)
            if !owned.contains(path) {
                FileValidation.remove(path: path)
                removed.append(path)
            }
        }
        return removed.sorted()
    }
}
