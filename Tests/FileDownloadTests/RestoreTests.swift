import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// What `restore()` does with each stored state, and how it reconciles the store with the files
/// on disk (docs/persistence.md, "Restoring"). The records are written as a crashed process would
/// have left them.
@Suite("Restore and reconciliation", .timeLimit(.minutes(1)))
struct RestoreTests {
    let directory: URL

    init() {
        self.init(directory: FileManager.default.temporaryDirectory.appendingPathComponent("fdl-restore-\(UUID().uuidString)"))
    }

    init(directory: URL) {
        self.directory = directory
    }

    func record(_ id: String, _ state: DownloadState, checkpoint: Int64 = 0, order: Int64 = 0,
                validator: Validator? = nil, expected: Int64? = nil) -> DownloadRecord {
        let destination = directory.appendingPathComponent(id)
        return DownloadRecord(id: id, url: URL(string: "mock://files/\(id)")!, destination: destination,
                              partPath: destination.path + ".part", state: state, validator: validator,
                              checkpointedBytes: checkpoint, expectedLength: expected, queueOrder: order)
    }

    /// Writes the first `count` bytes of `content` as the staging file of `id`.
    func part(_ id: String, _ content: MockContent, _ count: Int64) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try content.bytes(in: 0..<count).write(to: directory.appendingPathComponent(id + ".part"))
    }

    @Test("waiting downloads start again in their stored order")
    func waitingOrder() async throws {
        let store = InMemoryDownloadStore(records: [
            record("c", .waiting, order: 9), record("a", .waiting, order: 3), record("b", .waiting, order: 5),
        ])
        let (h, counter) = Harness.counting(maxConcurrent: 1, store: store, directory: directory)
        for id in ["a", "b", "c"] { h.serve(id, size: 100) }
        _ = try await h.downloader.restore()
        for id in ["a", "b", "c"] { await h.recorder.state(id, .completed) }
        #expect(counter.order == ["a", "b", "c"])
        await h.cleanUp()
    }

    @Test("paused stays paused with min(checkpoint, bytes on disk); resume continues there")
    func paused() async throws {
        let content = MockContent.seeded(seed: 1, size: 10_000)
        try part("p", content, 6000)  // 6000 on disk, 4000 checkpointed: the tail was never confirmed
        let store = InMemoryDownloadStore(records: [
            record("p", .paused, checkpoint: 4000, validator: content.defaultValidator, expected: 10_000),
        ])
        let h = Harness(store: store, directory: directory)
        h.serve("p", size: 10_000)
        _ = try await h.downloader.restore()
        #expect(await h.downloader.state(of: "p") == .paused)
        #expect(await h.downloader.resumeData(for: "p")?.bytesOnDisk == 4000)
        #expect(FileValidation.size(h.file("p").path + ".part") == 4000)
        try await h.downloader.resume("p")
        await h.recorder.state("p", .completed)
        #expect(h.mock.requests(for: h.url("p")).map(\.offset) == [4000])
        #expect(h.contents(h.file("p")) == content.data)
        await h.cleanUp()
    }

    @Test("interrupted and running downloads resume by themselves, or wait when told to")
    func interrupted() async throws {
        let content = MockContent.seeded(seed: 1, size: 10_000)
        try part("i", content, 3000)
        try part("r", content, 2000)
        let records = [
            record("i", .interrupted, checkpoint: 3000, order: 1, validator: content.defaultValidator),
            record("r", .downloading, checkpoint: 2000, order: 2, validator: content.defaultValidator),
        ]
        let h = Harness(store: InMemoryDownloadStore(records: records), directory: directory)
        h.serve("i", size: 10_000)
        h.serve("r", size: 10_000)
        let report = try await h.downloader.restore()
        #expect(report.resumed == ["i", "r"])
        await h.recorder.state("i", .completed)
        await h.recorder.state("r", .completed)
        #expect(h.mock.requests(for: h.url("i")).map(\.offset) == [3000])
        #expect(h.mock.requests(for: h.url("r")).map(\.offset) == [2000])
        await h.downloader.shutdown()

        let manual = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-restore-\(UUID().uuidString)")
        let still = RestoreTests(directory: manual)
        try still.part("i", content, 3000)
        let store = InMemoryDownloadStore(records: [still.record("i", .interrupted, checkpoint: 3000, validator: content.defaultValidator)])
        let waitingHarness = Harness(store: store, directory: manual, resumeInterruptedOnRestore: false)
        waitingHarness.serve("i", size: 10_000)
        let quiet = try await waitingHarness.downloader.restore()
        #expect(quiet.resumed.isEmpty)
        #expect(await waitingHarness.downloader.state(of: "i") == .interrupted)
        #expect(waitingHarness.mock.allRequests.isEmpty)
        await waitingHarness.cleanUp()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test("failed stays failed, with its bytes, until resumed")
    func failed() async throws {
        let content = MockContent.seeded(seed: 1, size: 10_000)
        try part("f", content, 2500)
        let h = Harness(store: InMemoryDownloadStore(records: [
            record("f", .failed, checkpoint: 2500, validator: content.defaultValidator),
        ]), directory: directory)
        h.serve("f", size: 10_000)
        _ = try await h.downloader.restore()
        #expect(await h.downloader.state(of: "f") == .failed)
        #expect(h.mock.allRequests.isEmpty)
        try await h.downloader.resume("f")
        await h.recorder.state("f", .completed)
        #expect(h.mock.requests(for: h.url("f")).map(\.offset) == [2500])
        await h.cleanUp()
    }

    @Test("a completed download whose file is gone is reported and can be fetched again")
    func completedGone() async throws {
        let h = Harness(store: InMemoryDownloadStore(records: [record("g", .completed, checkpoint: 100, expected: 100)]),
                        directory: directory)
        let content = h.serve("g", size: 100)
        let report = try await h.downloader.restore()
        #expect(report.vanished == ["g"])
        #expect(await h.downloader.state(of: "g") == .failed)
        #expect(await h.downloader.info(of: "g")?.lastErrorCode == .fileSystem)
        try await h.downloader.resume("g")
        await h.recorder.state("g", .completed)
        #expect(h.contents(h.file("g")) == content.data)
        await h.cleanUp()
    }

    @Test("an orphan staging file is removed; one that belongs to a download is kept")
    func orphanPart() async throws {
        let content = MockContent.seeded(seed: 1, size: 10_000)
        try part("orphan", content, 500)
        try part("owned", content, 500)
        let h = Harness(store: InMemoryDownloadStore(records: [
            record("owned", .paused, checkpoint: 500, validator: content.defaultValidator),
        ]), directory: directory)
        let report = try await h.downloader.restore()
        #expect(report.removedOrphans == [h.file("orphan").standardizedFileURL.path + ".part"])
        #expect(!FileManager.default.fileExists(atPath: h.file("orphan").path + ".part"))
        #expect(FileValidation.size(h.file("owned").path + ".part") == 500)
        await h.cleanUp()
    }

    @Test("a missing staging file restarts from zero, never from the checkpoint")
    func missingPart() async throws {
        let content = MockContent.seeded(seed: 1, size: 10_000)
        let h = Harness(store: InMemoryDownloadStore(records: [
            record("m", .downloading, checkpoint: 5000, validator: content.defaultValidator),
        ]), directory: directory)
        h.serve("m", size: 10_000)
        let report = try await h.downloader.restore()
        #expect(report.restartedFromZero == ["m"])
        await h.recorder.state("m", .completed)
        #expect(h.mock.requests(for: h.url("m")).map(\.offset) == [0])
        #expect(h.mock.requests(for: h.url("m")).first?.validator == nil)
        #expect(h.contents(h.file("m")) == content.data)
        await h.cleanUp()
    }

    @Test("a destination edited by hand is reported and left alone")
    func editedDestination() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("my notes".utf8).write(to: directory.appendingPathComponent("e"))
        let h = Harness(store: InMemoryDownloadStore(records: [record("e", .completed, checkpoint: 1000, expected: 1000)]),
                        directory: directory)
        let report = try await h.downloader.restore()
        #expect(report.modified == ["e"])
        #expect(await h.downloader.state(of: "e") == .completed)
        #expect(h.contents(h.file("e")) == Data("my notes".utf8))
        await h.cleanUp()
    }
}
