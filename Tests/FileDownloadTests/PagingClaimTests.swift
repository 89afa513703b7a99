import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// The files of downloads left in a paging store stay theirs: a new download cannot take their
/// destination, paging one in touches no file another download claims, and a store that cannot be
/// read is an error, not a yes (docs/persistence.md, "Paging").
@Suite("Paging keeps the files of downloads left in the store", .timeLimit(.minutes(2)))
struct PagingClaimTests {
    /// A downloader restored from a paging store holding 100 waiting downloads `w0`... (more than
    /// it keeps in memory); its one slot is held by `w0`, whose transfer stalls on the manual clock.
    func busyHarness(_ dir: TemporaryDirectory) async throws -> (Harness, InMemoryDownloadStore) {
        let records = (0..<100).map { record("w\($0)", in: dir, order: Int64($0)) }
        let store = InMemoryDownloadStore(records: records, pagesWaitingDownloads: true)
        let h = Harness(maxConcurrent: 1, store: store, directory: dir.url)
        h.serve("w0", size: 100_000, chunkSize: 1000, chunkDelay: .seconds(1))
        _ = try await h.downloader.restore()
        await h.recorder.state("w0", .downloading)
        return (h, store)
    }

    func record(_ id: String, in dir: TemporaryDirectory, file: String? = nil, _ state: DownloadState = .waiting,
                order: Int64, bytes: Int64 = 0) -> DownloadRecord {
        let destination = dir.file(file ?? id)
        var r = DownloadRecord(id: id, url: URL(string: "mock://files/\(id)")!, destination: destination,
                               partPath: destination.path + ".part", state: state, options: DownloadOptions(),
                               queueOrder: order)
        r.checkpointedBytes = bytes
        return r
    }

    @Test("a new download cannot take the destination or staging file of one waiting in the store")
    func addRefusedForStoredDestination() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (h, _) = try await busyHarness(dir)
        #expect(await h.downloader.residentCount < 100)  // w99 is left in the store
        for file in ["w99", "w99.part"] {
            await #expect(throws: DownloadError.self) {
                try await h.downloader.add(id: "y-\(file)", url: h.url("y"), destination: dir.file(file))
            }
        }
        let resume = ResumeData(id: "y", url: h.url("y"), destination: dir.file("w99"), partPath: dir.path("w99.part"),
                                bytesOnDisk: 0, validator: nil, expectedLength: nil, options: DownloadOptions())
        await #expect(throws: DownloadError.self) { try await h.downloader.start(id: "y", resumeData: resume) }
        #expect(await h.downloader.state(of: "y-w99") == nil)
        #expect(await h.downloader.state(of: "w99") == .waiting)
        await h.cleanUp()
    }

    @Test("paging in a download whose files another claims fails it without touching them")
    func pageInTouchesNoClaimedFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (h, store) = try await busyHarness(dir)
        // y owns "shared" and has 5000 bytes staged; a record x with the same paths and a
        // 10-byte checkpoint reaches the store behind the downloader's back.
        try await h.downloader.add(id: "y", url: h.url("y"), destination: dir.file("shared"))
        let staged = try dir.createFile("shared.part", contents: Data(repeating: 7, count: 5000))
        await store.save(record("x", in: dir, file: "shared", order: 500, bytes: 10))
        let outcome = try await h.downloader.outcome(of: "x")
        guard case .failed(let error, _) = outcome else { Issue.record("x: \(outcome)"); return }
        #expect(error.code == .invalidDestination)
        #expect(FileValidation.size(staged) == 5000)
        try await h.downloader.remove("x")
        #expect(FileValidation.size(staged) == 5000)
        #expect(await h.downloader.state(of: "y") == .notStarted)
        await h.cleanUp()
    }

    @Test("a cancelled download paged in claims nothing, and removing it keeps a newer download's staging file")
    func finishedPagedInTouchesNothing() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (h, store) = try await busyHarness(dir)
        await store.save(record("old", in: dir, file: "again", .cancelled, order: 600))
        await store.save(record("done", in: dir, file: "gone", .completed, order: 601, bytes: 3))
        // A newer download takes the cancelled one's destination and stages bytes there.
        try await h.downloader.add(id: "new", url: h.url("new"), destination: dir.file("again"))
        let staged = try dir.createFile("again.part", contents: Data(repeating: 1, count: 64))
        #expect(await h.downloader.state(of: "old") == .cancelled)
        _ = try await h.downloader.outcome(of: "old")  // pages it in
        await #expect(throws: DownloadError.self) {
            try await h.downloader.add(id: "third", url: h.url("third"), destination: dir.file("again"))
        }
        try await h.downloader.remove("old")
        #expect(FileValidation.size(staged) == 64)
        // A completed record paged in is taken as stored: its file is not looked for.
        let done = try await h.downloader.outcome(of: "done")
        guard case .completed = done else { Issue.record("done: \(done)"); return }
        await h.cleanUp()
    }

    @Test("a store that cannot be read is an error for add, start and pause, not a yes")
    func storeErrorsThrow() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (h, store) = try await busyHarness(dir)
        await store.setFailsReads(true)
        for call in [
            { try await h.downloader.add(id: "w99", url: h.url("w99"), destination: dir.file("other")) },
            { try await h.downloader.add(id: "fresh", url: h.url("fresh"), destination: dir.file("fresh")) },
            { _ = try await h.downloader.pause("w98") },
        ] as [@Sendable () async throws -> Void] {
            await expectError(.store, call)
        }
        // Listings fall back to memory.
        #expect(await h.downloader.countsByState()[.downloading] == 1)
        await store.setFailsReads(false)
        #expect(await h.downloader.state(of: "w99") == .waiting)
        #expect(await h.downloader.state(of: "fresh") == nil)
        await h.cleanUp()
    }
}
