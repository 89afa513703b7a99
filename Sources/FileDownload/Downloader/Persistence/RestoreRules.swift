import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The rules by which a stored download is reconciled with the files on disk when it comes back
/// into memory (``Downloader/restore()``, and a download paged in from a paging store): its
/// paths checked before anything is done with them, the staging file cut to what was
/// checkpointed, segments kept only when the file holds them, a completed file looked for, and
/// staging files that belong to no download removed.
///
/// Functions over a record and the file system, with no downloader and no store: the
/// ``Downloader`` carries out what they return (the lifecycle's actions, the save, the queue).
enum RestoreRules {
    /// What reconciling a record found, besides the bytes it keeps (``RestoreReport`` lists it).
    enum Finding: Equatable, Sendable {
        /// Its paths failed the check: now failed, no file touched.
        case rejected
        /// Completed, and its file is gone: now failed.
        case vanished
        /// Completed, and its file no longer has the recorded size: stays completed.
        case modified
        /// Bytes were checkpointed, but the staging file is gone or untrustworthy: from zero.
        case restartedFromZero
    }

    /// A stored download reconciled with the disk.
    struct Restored {
        /// The entry, keeping the bytes the disk still holds; its lifecycle has taken the trigger
        /// whose ``actions`` are left to carry out.
        var entry: DownloadEntry
        /// What the lifecycle's trigger returned (restored as failed, or after a crash): the
        /// downloader carries them out on ``entry`` before it stores it.
        var actions: [DownloadAction] = []
        /// What was found, if anything.
        var finding: Finding?
        /// Whether the entry changed from the record in a way that is stored and announced.
        var changed = false

        /// Adds the finding for the entry to `report`.
        func note(in report: inout RestoreReport) {
            let id = entry.id
            switch finding {
            case .rejected: report.rejected.append(id)
            case .vanished: report.vanished.append(id)
            case .modified: report.modified.append(id)
            case .restartedFromZero: report.restartedFromZero.append(id)
            case nil: break
            }
        }
    }

    /// The entry `record` describes, reconciled with the disk, in this order:
    /// - its paths are checked first (``DownloadPaths``, with `stagingSuffix`): a record that fails
    ///   is failed (``DownloadError/Code/invalidDestination``, ``Finding/rejected``) and no file is
    ///   touched;
    /// - `completed`: its file is looked for; gone, it is failed with its bytes forgotten
    ///   (``Finding/vanished``); of another size than recorded, it stays completed
    ///   (``Finding/modified``);
    /// - `cancelled`: taken as it is;
    /// - any other: segments that fit (``segmentsFit(_:)``) are kept with the file as it is;
    ///   otherwise the staging file is cut to the checkpointed bytes (or the segments' contiguous
    ///   prefix), and a file that is gone or untrustworthy means a start from zero (with bytes
    ///   checkpointed, ``Finding/restartedFromZero``); a download that was running
    ///   (`downloading`: the process died) is made interrupted.
    static func reconcile(_ record: DownloadRecord, stagingSuffix: String) -> Restored {
        var restored = Restored(entry: DownloadEntry(record: record))
        restored.entry.bytesOnDisk = 0
        if let problem = DownloadPaths.problem(destination: restored.entry.destination, partPath: record.partPath,
                                               stagingSuffix: stagingSuffix) {
            restored.entry.lastError = DownloadError(.invalidDestination,
                                                     "the stored download was refused and no file was touched: \(problem)")
            restored.actions = restored.entry.lifecycle.restoredAsFailed()
            restored.finding = .rejected
            restored.changed = true
            return restored
        }
        switch record.state {
        case .completed:
            restored.entry.bytesOnDisk = record.checkpointedBytes
            let size = FileValidation.size(ofFileAt: record.destination.path)
            if size == nil {
                restored.actions = restored.entry.lifecycle.restoredAsFailed()
                restored.entry.forgetBytes()
                restored.entry.lastError = DownloadError(.fileSystem, "the completed file \(record.destination.path) is gone")
                restored.finding = .vanished
                restored.changed = true
            } else if let expected = record.expectedLength, size != expected {
                restored.finding = .modified
            }
        case .cancelled:
            break
        case .downloading, .waiting, .interrupted, .paused, .failed, .notStarted:
            if segmentsFit(record) {
                // Each segment continues from its own bytes: the file is kept as it is.
                restored.entry.segments = record.segments
                restored.entry.bytesOnDisk = record.segments.bytesDone
            } else {
                restored.entry.segments = []
                let prefix = record.segments.isEmpty ? record.checkpointedBytes : record.segments.contiguousPrefix
                let kept = cutStagingFile(record.partPath, to: prefix)
                if kept == nil, prefix > 0 {
                    restored.finding = .restartedFromZero
                    restored.changed = true
                }
                restored.entry.bytesOnDisk = kept ?? 0
                if restored.entry.bytesOnDisk == 0 { restored.entry.validator = nil }
            }
            if record.state == .downloading {
                restored.actions = restored.entry.lifecycle.restoredAfterCrash()
                restored.entry.lastError = DownloadError(.connectionLost, "the process stopped during the download")
                restored.changed = true
            }
        }
        return restored
    }

    /// Cuts the staging file at `path` to at most `limit` bytes through a descriptor opened with
    /// ``StagingFile/reopen(_:)`` (which also gives back space reserved past the end by a process
    /// that died); the bytes kept, or `nil` when there is no trustworthy file (an entry that
    /// failed the check was removed).
    static func cutStagingFile(_ path: String, to limit: Int64) -> Int64? {
        guard let fd = StagingFile.reopen(path) else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let keep = min(limit, Int64(st.st_size))
        guard ftruncate(fd, off_t(keep)) == 0 else { return nil }
        return keep
    }

    /// Removes the `*<stagingSuffix>` entries directly inside `directory` (files and links, never
    /// a directory; nothing below or outside it) whose path is not in `owned`; the paths removed,
    /// sorted.
    static func removeOrphanStagingFiles(in directory: URL, stagingSuffix: String, owned: Set<String>) -> [String] {
        let directory = directory.standardizedFileURL.path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for name in names where name.hasSuffix(stagingSuffix) {
            let path = (directory as NSString).appendingPathComponent(name)
            if !owned.contains(path), StagingFile.remove(path) {
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
