import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// Waiting downloads left in a paging store (`DownloadStore.pagesWaitingDownloads`): paged in as
/// slots free up in the order of priority then queue order, restore without reading every record,
/// listing and counting from the store (docs/persistence.md, "Paging").
@Suite("Paging waiting downloads from the store", .timeLimit(.minutes(2)))
struct PagingTests {
    func record(_ id: String, in dir: TemporaryDirectory, _ state: DownloadState = .waiting, order: Int64,
                priority: Int = 0) -> DownloadRecord {
        let destination = dir.file(id)
        return DownloadRecord(id: id, url: URL(string: "mock://files/\(id)")!, destination: destination,
                              partPath: destination.path + ".part", state: state,
                              options: DownloadOptions(priority: priority), queueOrder: order)
    }

    /// Ids sorted the way waiting downloads run: higher priority first, then smaller order.
    func runOrder(_ records: [DownloadRecord]) -> [String] {
        records.sorted { $0.runs(before: $1) }.map(\.id)
    }

    /// A downloader restored from a paging store holding `count` waiting downloads `<name>0`...,
    /// each served with `size` bytes.
    func restoredWaiting(_ count: Int, named name: String, in dir: TemporaryDirectory, maxConcurrent: Int,
                         size: Int64) async throws -> Harness {
        let records = (0..<count).map { record("\(name)\($0)", in: dir, order: Int64($0)) }
        let store = InMemoryDownloadStore(records: records, pagesWaitingDownloads: true)
        let h = Harness(maxConcurrent: maxConcurrent, store: store, directory: dir.url)
        for i in 0..<count { h.serve("\(name)\(i)", size: size) }
        _ = try await h.downloader.restore()
        return h
    }

    @Test("more waiting than slots and than kept in memory: they run by priority, then order, across a restart")
    func orderAcrossRestore() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = InMemoryDownloadStore(pagesWaitingDownloads: true)
        // The first process: a paging store restored (empty), then 300 downloads started while the
        // one slot is held by a stalled transfer; most of them are left in the store.
        let first = Harness(maxConcurrent: 1, store: store, directory: dir.url)
        _ = try await first.downloader.restore()
        first.serve("stall", size: 100_000, chunkSize: 1000, chunkDelay: .seconds(1))
        try await first.downloader.start(id: "stall", url: first.url("stall"), options: DownloadOptions(priority: 9))
        await first.recorder.state("stall", .downloading)
        var expected: [DownloadRecord] = []
        for i in 0..<300 {
            let id = "f\(i)"
            let priority = [0, 2, 1][i % 3]
            try await first.downloader.start(id: id, url: first.url(id), options: DownloadOptions(priority: priority))
            expected.append(record(id, in: dir, order: Int64(i + 1), priority: priority))
        }
        #expect(await first.downloader.countsByState() == [.waiting: 300, .downloading: 1])
        #expect(await first.downloader.state(of: "f299") == .waiting)
        await first.downloader.shutdown()
        // The second process runs them all, one at a time.
        let (second, counter) = Harness.counting(maxConcurrent: 1, store: store, directory: dir.url)
        second.serve("stall", size: 100)
        for i in 0..<300 { second.serve("f\(i)", size: 100) }
        _ = try await second.downloader.restore()
        for i in 0..<300 { await second.recorder.state("f\(i)", .completed) }
        #expect(counter.order == ["stall"] + runOrder(expected))
        #expect(await store.loadAllCount == 0)
        #expect(await second.downloader.countsByState() == [.completed: 301])
        await second.cleanUp()
    }

    @Test("restore of 20,000 stored downloads starts the first without reading them all")
    func restoreDoesNotReadAll() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var records = (0..<20_000).map { record("w\($0)", in: dir, order: Int64($0)) }
        records += (0..<50).map { record("p\($0)", in: dir, .paused, order: Int64(20_000 + $0)) }
        let store = InMemoryDownloadStore(records: records, pagesWaitingDownloads: true)
        let h = Harness(maxConcurrent: 2, store: store, directory: dir.url)
        // w0 completes; w1 and w2 then hold both slots (their transfers wait on the manual clock).
        h.serve("w0", size: 100)
        for id in ["w1", "w2"] { h.serve(id, size: 100_000, chunkSize: 1000, chunkDelay: .seconds(1)) }
        let report = try await h.downloader.restore()
        await h.recorder.state("w0", .completed)
        await h.recorder.state("w2", .downloading)
        #expect(await store.loadAllCount == 0)
        #expect(await store.recordsRead < 1000)
        #expect(report.restored.count == 50)  // the paused ones; the waiting ones stay in the store
        #expect(await h.downloader.state(of: "w19999") == .waiting)
        #expect(await h.downloader.info(of: "w19999")?.destination == h.file("w19999"))
        let counts = await h.downloader.countsByState()
        #expect(counts.values.reduce(0, +) == 20_050 && counts[.paused] == 50)
        await #expect(throws: DownloadError.self) {
            try await h.downloader.start(id: "w19999", url: h.url("w19999"))
        }
        // A download left in the store can be acted on: it is paged in first.
        try await h.downloader.cancel("w15000")
        #expect(await h.downloader.state(of: "w15000") == .cancelled)
        #expect(await store.recordsRead < 1000)
        await h.cleanUp()
    }

    @Test("finished downloads beyond the newest 1,024 leave memory; the store answers for them")
    func finishedLeaveMemory() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let h = try await restoredWaiting(3000, named: "x", in: dir, maxConcurrent: 4, size: 10)
        for i in 0..<3000 { await h.recorder.state("x\(i)", .completed) }
        #expect(await h.downloader.residentCount <= 2 * 1024 + 64)
        #expect(await h.downloader.countsByState() == [.completed: 3000])
        #expect(await h.downloader.state(of: "x0") == .completed)
        #expect(await h.downloader.info(of: "x1")?.destination == h.file("x1"))
        await #expect(throws: DownloadError.self) { try await h.downloader.start(id: "x2", url: h.url("x2")) }
        let outcome = try await h.downloader.outcome(of: "x3")
        if case .completed(let file) = outcome {
            #expect(file == h.file("x3"))
        } else {
            Issue.record("x3: \(outcome)")  // no early return: the downloader is still shut down below
        }
        try await h.downloader.remove("x4")
        #expect(await h.downloader.state(of: "x4") == nil)
        #expect(await h.downloader.countsByState() == [.completed: 2999])
        await h.cleanUp()
    }

    @Test("restore reads no finished download and looks at none of their files; the store answers for them as stored, restart after restart")
    func restoreLeavesFinishedInStore() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // 3,000 finished (one in ten cancelled), then one paused; none of their files exists.
        var records = (0..<3000).map { record("d\($0)", in: dir, $0 % 10 == 0 ? .cancelled : .completed, order: Int64($0)) }
        records.append(record("p", in: dir, .paused, order: 3000))
        let store = InMemoryDownloadStore(records: records, pagesWaitingDownloads: true)
        for _ in 0..<2 {  // a second start finds the store as the first left it
            let h = Harness(store: store, directory: dir.url)
            let before = await store.recordsRead
            let report = try await h.downloader.restore()
            #expect(await store.loadAllCount == 0)
            #expect(await store.recordsRead - before == 1)
            #expect(report.restored == ["p"] && report.vanished.isEmpty && report.modified.isEmpty)
            #expect(await h.downloader.state(of: "d2999") == .completed)
            #expect(await h.downloader.info(of: "d1975")?.destination == h.file("d1975"))
            #expect(await h.downloader.countsByState() == [.completed: 2700, .cancelled: 300, .paused: 1])
            await #expect(throws: DownloadError.self) { try await h.downloader.start(id: "d5", url: h.url("d5")) }
            await h.downloader.shutdown()
        }
        let h = Harness(store: store, directory: dir.url)
        _ = try await h.downloader.restore()
        try await h.downloader.remove("d7")
        #expect(await h.downloader.state(of: "d7") == nil)
        #expect(await h.downloader.countsByState()[.completed] == 2699)
        await h.cleanUp()
    }

    @Test("listing and counting by state are right while downloads move")
    func listingWhileMoving() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let h = try await restoredWaiting(200, named: "m", in: dir, maxConcurrent: 3, size: 1000)
        for checkpoint in [10, 90, 199] {
            await h.recorder.state("m\(checkpoint)", .completed)
            let counts = await h.downloader.countsByState()
            #expect(counts.values.reduce(0, +) == 200)
            #expect((counts[.completed] ?? 0) >= 1)
            var seen: [String] = []
            var after: Int64?
            repeat {
                let page = await h.downloader.downloads(after: after, limit: 37)
                seen += page.downloads.map(\.id)
                after = page.next
            } while after != nil
            #expect(seen == (0..<200).map { "m\($0)" })
            let completed = await h.downloader.downloads(in: [.completed], limit: 1000).downloads
            #expect(completed.allSatisfy { $0.state == .completed } && completed.count >= counts[.completed] ?? 0)
        }
        for i in 0..<200 { await h.recorder.state("m\(i)", .completed) }
        #expect(await h.downloader.countsByState() == [.completed: 200])
        #expect(await h.downloader.downloadCount == 200)
        await h.cleanUp()
    }
}
