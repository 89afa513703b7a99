@testable import FileDownload
import Foundation
import Testing

/// The restore rules on their own: a stored record reconciled with the files on disk, and the
/// staging files that belong to no download. No downloader, no store: records and a temporary
/// directory.
@Suite("Restore rules: a record and the disk")
struct RestoreRulesTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-rules-\(UUID().uuidString)")

    func record(_ id: String, _ state: DownloadState, checkpoint: Int64 = 0, segments: [SegmentCheckpoint] = [],
                validator: Validator? = .entityTag("\"v1\""), expected: Int64? = 10_000) -> DownloadRecord {
        let destination = directory.appendingPathComponent(id)
        return DownloadRecord(id: id, url: URL(string: "mock://files/\(id)")!, destination: destination,
                              partPath: destination.path + ".part", state: state, validator: validator,
                              checkpointedBytes: checkpoint, segments: segments, expectedLength: expected)
    }

    /// Writes `count` bytes at `path`, making the directory first.
    func write(_ count: Int, at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(repeating: 7, count: count).write(to: URL(fileURLWithPath: path))
    }

    /// A record whose staging file holds `onDisk` bytes: the set-up most rules start from.
    func staged(_ id: String, _ state: DownloadState, onDisk: Int, checkpoint: Int64 = 0,
                segments: [SegmentCheckpoint] = [], validator: Validator? = .entityTag("\"v1\""),
                expected: Int64? = 10_000) throws -> DownloadRecord {
        let r = record(id, state, checkpoint: checkpoint, segments: segments, validator: validator, expected: expected)
        try write(onDisk, at: r.partPath)
        return r
    }

    func size(_ path: String) -> Int64? { FileValidation.size(path) }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    @Test("a staging file longer than the checkpoint is cut to it; the record's state and validator stay")
    func longerThanCheckpointIsCut() throws {
        defer { cleanUp() }
        let r = try staged("p", .paused, onDisk: 6000, checkpoint: 4000)
        let restored = RestoreRules.reconcile(r, stagingSuffix: ".part")
        #expect(size(r.partPath) == 4000)
        #expect(restored.entry.bytesOnDisk == 4000)
        #expect(restored.entry.state == .paused)
        #expect(restored.entry.validator == r.validator)
        #expect(restored.finding == nil && !restored.changed && restored.actions.isEmpty)
    }

    @Test("a staging file shorter than the checkpoint keeps what it has")
    func shorterThanCheckpointKeepsItsBytes() throws {
        defer { cleanUp() }
        let r = try staged("s", .interrupted, onDisk: 2500, checkpoint: 4000)
        let restored = RestoreRules.reconcile(r, stagingSuffix: ".part")
        #expect(size(r.partPath) == 2500)
        #expect(restored.entry.bytesOnDisk == 2500)
        #expect(restored.finding == nil)
    }

    @Test("a staging file that is gone starts over: no bytes, no validator, reported and stored")
    func goneStartsOver() {
        let r = record("g", .paused, checkpoint: 4000)
        let restored = RestoreRules.reconcile(r, stagingSuffix: ".part")
        #expect(restored.entry.bytesOnDisk == 0)
        #expect(restored.entry.validator == nil)
        #expect(restored.finding == .restartedFromZero && restored.changed)
        var report = RestoreReport()
        restored.note(in: &report)
        #expect(report.restartedFromZero == ["g"])
    }

    @Test("a staging file that is a link is removed, not followed, and the download starts over")
    func linkIsNotFollowed() throws {
        defer { cleanUp() }
        let r = record("l", .paused, checkpoint: 100)
        let target = directory.appendingPathComponent("elsewhere").path
        try write(500, at: target)
        try FileManager.default.createSymbolicLink(atPath: r.partPath, withDestinationPath: target)
        let restored = RestoreRules.reconcile(r, stagingSuffix: ".part")
        #expect(restored.finding == .restartedFromZero)
        #expect(size(target) == 500, "what the link names is not cut")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: r.partPath)) == nil)
    }

    @Test("segments that fit are kept with the file as it is")
    func segmentsThatFitAreKept() throws {
        defer { cleanUp() }
        let segments = [SegmentCheckpoint(start: 0, end: 5000, done: 2000), SegmentCheckpoint(start: 5000, end: 10_000, done: 1000)]
        let r = try staged("f", .paused, onDisk: 6000, segments: segments)
        let restored = RestoreRules.reconcile(r, stagingSuffix: ".part")
        #expect(restored.entry.segments == segments)
        #expect(restored.entry.bytesOnDisk == 3000)
        #expect(size(r.partPath) == 6000)
    }

    @Test("segments that do not fit are dropped: the file is cut to their contiguous prefix",
          arguments: [
              ("the file is shorter than a segment's bytes", Validator.entityTag("\"v1\""), Int64(10_000), 5500),
              ("a weak validator", Validator.entityTag("W/\"v1\""), Int64(10_000), 6000),
              ("they do not cover the length", Validator.entityTag("\"v1\""), Int64(12_000), 6000),
          ])
    func segmentsThatDoNotFitAreDropped(why: String, validator: Validator, expected: Int64, onDisk: Int) throws {
        defer { cleanUp() }
        let segments = [SegmentCheckpoint(start: 0, end: 5000, done: 5000), SegmentCheckpoint(start: 5000, end: 10_000, done: 1000)]
        let r = try staged("d", .paused, onDisk: onDisk, segments: segments, validator: validator, expected: expected)
        let restored = RestoreRules.reconcile(r, stagingSuffix: ".part")
        #expect(restored.entry.segments.isEmpty, "\(why)")
        let prefix = Int64(min(onDisk, 6000))
        #expect(restored.entry.bytesOnDisk == prefix, "\(why)")
        #expect(size(r.partPath) == prefix, "\(why)")
    }

    @Test("a download that was running is interrupted; the transition is left to carry out")
    func runningBecomesInterrupted() throws {
        defer { cleanUp() }
        let r = try staged("r", .downloading, onDisk: 300, checkpoint: 300)
        let restored = RestoreRules.reconcile(r, stagingSuffix: ".part")
        #expect(restored.entry.state == .interrupted)
        #expect(restored.entry.lastError?.code == .connectionLost)
        #expect(restored.changed)
        let sent = restored.actions.flatMap { action -> [DownloadEvent] in
            if case .send(let events) = action { events } else { [] }
        }
        #expect(sent.count == 1)
        if case .stateChanged("r", .interrupted)? = sent.first {} else { Issue.record("sent \(sent)") }
    }

    @Test("a record whose staging path is not its destination's is refused and its files are not touched")
    func forgedPathsAreRefused() throws {
        defer { cleanUp() }
        var r = record("x", .paused, checkpoint: 10)
        r.partPath = directory.appendingPathComponent("other.part").path
        try write(500, at: r.partPath)
        let restored = RestoreRules.reconcile(r, stagingSuffix: ".part")
        #expect(restored.finding == .rejected)
        #expect(restored.entry.state == .failed)
        #expect(restored.entry.lastError?.code == .invalidDestination)
        #expect(size(r.partPath) == 500)
    }

    @Test("a completed download whose file is gone fails with its bytes forgotten; one edited by hand stays completed")
    func completedFiles() throws {
        defer { cleanUp() }
        let gone = RestoreRules.reconcile(record("c", .completed, checkpoint: 10_000), stagingSuffix: ".part")
        #expect(gone.finding == .vanished && gone.entry.state == .failed)
        #expect(gone.entry.bytesOnDisk == 0 && gone.entry.validator == nil)
        let edited = record("e", .completed, checkpoint: 10_000)
        try write(9, at: edited.destination.path)
        let kept = RestoreRules.reconcile(edited, stagingSuffix: ".part")
        #expect(kept.finding == .modified && kept.entry.state == .completed && !kept.changed)
    }

    @Test("orphan staging files are removed only directly inside the download directory: not owned ones, not below, not outside, never a directory")
    func orphansOnlyInsideTheDirectory() throws {
        defer { cleanUp() }
        let downloads = directory.appendingPathComponent("downloads")
        let orphan = downloads.appendingPathComponent("orphan.part").path
        let owned = downloads.appendingPathComponent("owned.part").path
        let below = downloads.appendingPathComponent("sub/deep.part").path
        let outside = directory.appendingPathComponent("outside.part").path
        let folder = downloads.appendingPathComponent("folder.part").path
        for path in [orphan, owned, below, outside] { try write(10, at: path) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let removed = RestoreRules.removeOrphanStagingFiles(in: downloads, stagingSuffix: ".part", owned: [owned])
        #expect(removed == [orphan])
        #expect(size(orphan) == nil)
        for path in [owned, below, outside] { #expect(size(path) == 10, "\(path)") }
        #expect(FileManager.default.fileExists(atPath: folder))
    }
}
