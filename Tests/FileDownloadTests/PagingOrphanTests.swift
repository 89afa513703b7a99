import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// A restore removes staging files nobody owns, and keeps those of downloads left waiting in a
/// paging store: over one stream (checkpointed bytes) and in segments whose contiguous prefix is
/// still 0 (bytes only in a later segment); paged in later, one continues from its checkpoint.
@Suite("Downloads left waiting in the store keep their staging files and continue from them", .timeLimit(.minutes(1)))
struct PagingOrphanTests {
    /// A waiting download `id` of the mock host whose files live in `dir`.
    func record(_ id: String, in dir: TemporaryDirectory, order: Int64) -> DownloadRecord {
        let destination = dir.file(id)
        return DownloadRecord(id: id, url: URL(string: "mock://files/\(id)")!, destination: destination,
                              partPath: destination.path + ".part", state: .waiting, queueOrder: order)
    }

    @Test("the bytes of waiting downloads beyond the page stay; an orphaned staging file goes")
    func keepsWaitingBytes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let directory = dir.url
        // 200 waiting ahead of them: far more than a restore reads into memory.
        var records = (0..<200).map { record("w\($0)", in: dir, order: Int64($0)) }
        var single = record("single", in: dir, order: 1000)
        single.validator = .entityTag("\"s\"")
        single.checkpointedBytes = 500
        single.expectedLength = 1000
        var split = record("split", in: dir, order: 1001)
        split.validator = .entityTag("\"p\"")
        split.expectedLength = 2000
        split.segments = [SegmentCheckpoint(start: 0, end: 1000, done: 0), SegmentCheckpoint(start: 1000, end: 2000, done: 300)]
        records += [single, split]
        for (path, size) in [(single.partPath, 500), (split.partPath, 1300), (directory.path + "/orphan.part", 10)] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(count: size)))
        }
        let store = InMemoryDownloadStore(records: records, pagesWaitingDownloads: true)
        let h = Harness(maxConcurrent: 1, store: store, directory: directory)
        for i in 0..<200 { h.serve("w\(i)", size: 100_000, chunkSize: 1000, chunkDelay: .seconds(1)) }
        let report = try await h.downloader.restore()
        #expect(report.removedOrphans == [directory.path + "/orphan.part"])
        #expect(FileManager.default.fileExists(atPath: single.partPath))
        #expect(FileManager.default.fileExists(atPath: split.partPath), "segments with a prefix of 0 still own their bytes")
        #expect(await h.downloader.state(of: "split") == .waiting)
        await h.cleanUp()
    }

    @Test("a download paged in from the store continues its staging file from the checkpoint, byte-exact")
    func pagedInResumes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let directory = dir.url
        var records = (0..<200).map { record("w\($0)", in: dir, order: Int64($0)) }
        var late = record("late", in: dir, order: 1000)
        records.append(late)
        let store = InMemoryDownloadStore(records: [], pagesWaitingDownloads: true)
        let h = Harness(maxConcurrent: 2, store: store, directory: directory)
        for i in 0..<200 { h.serve("w\(i)", size: 10) }
        let content = h.serve("late", size: 10_000, chunkSize: 1000)
        late.validator = content.defaultValidator
        late.checkpointedBytes = 4000
        late.expectedLength = 10_000
        records[200] = late
        try await store.saveAll(records)
        #expect(FileManager.default.createFile(atPath: late.partPath, contents: content.data.prefix(4000)))
        _ = try await h.downloader.restore()
        await h.recorder.state("late", .completed)
        #expect(h.contents(h.file("late")) == content.data)
        #expect(h.mock.requests(for: h.url("late")).map(\.offset) == [4000])
        await h.cleanUp()
    }
}
