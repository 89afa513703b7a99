import FileDownload
import FileDownloadMock
import Foundation
import Testing

@Suite("Concurrency limit and the waiting queue", .timeLimit(.minutes(2)))
struct QueueTests {
    @Test("200 downloads with a limit of 4: never more than 4 at once, started in FIFO order")
    func limitAndFIFO() async throws {
        let (h, counter) = Harness.counting(maxConcurrent: 4)
        let counting = counter
        let ids = (0..<200).map { String(format: "d%03d", $0) }
        for (i, id) in ids.enumerated() {
            // Two chunks, 1 ms apart on the manual clock: each batch of 4 parks together.
            h.serve(id, size: 2000, seed: UInt64(i), chunkSize: 1000, chunkDelay: .milliseconds(1))
            try await h.downloader.start(id: id, url: h.url(id))
        }
        for _ in 0..<50 {
            await h.parked(5)  // the tick loop and 4 transfers
            #expect(h.clock.sleeperCount == 5)
            h.clock.advance(by: .milliseconds(1))
        }
        for id in ids { await h.recorder.state(id, .completed) }
        await h.downloader.settle()
        #expect(counting.peak == 4)
        // The downloader starts them in FIFO order (two transfers that begin within the same
        // instant may reach the transport in either order, so the order is read from the events).
        #expect(Set(counting.order) == Set(ids))
        let activity = h.recorder.events.compactMap { if case .activityCountChanged(let n) = $0 { n } else { nil } }
        #expect((activity.max() ?? 0) <= 4)
        let starts = h.recorder.events.compactMap { event -> String? in
            if case .stateChanged(let id, .downloading) = event { return id }
            return nil
        }
        #expect(starts == ids)
        await h.cleanUp()
    }

    @Test("priority runs first, then FIFO")
    func priority() async throws {
        let (h, counter) = Harness.counting(maxConcurrent: 1)
        h.serve("blocker", size: 1000, chunkSize: 100)
        h.mock.script(h.url("blocker"), attempts: [.stall(at: 100)])
        try await h.downloader.start(id: "blocker", url: h.url("blocker"))
        await h.parked(2)
        for (id, priority) in [("low1", 0), ("high", 5), ("low2", 0), ("mid", 1)] {
            h.serve(id, size: 100)
            try await h.downloader.start(id: id, url: h.url(id), options: DownloadOptions(priority: priority))
        }
        try await h.downloader.pause("blocker")
        for id in ["low1", "high", "low2", "mid"] { await h.recorder.state(id, .completed) }
        #expect(counter.order == ["blocker", "high", "mid", "low1", "low2"])
        await h.cleanUp()
    }

    @Test("a paused waiting download keeps its place; cancel of an unknown id touches nothing")
    func pausedKeepsPlace() async throws {
        let (h, counter) = Harness.counting(maxConcurrent: 1)
        h.serve("blocker", size: 1000, chunkSize: 100)
        h.mock.script(h.url("blocker"), attempts: [.stall(at: 100)])
        try await h.downloader.start(id: "blocker", url: h.url("blocker"))
        await h.parked(2)
        for id in ["w1", "w2", "w3"] {
            h.serve(id, size: 100)
            try await h.downloader.start(id: id, url: h.url(id))
        }
        try await h.downloader.pause("w1")
        try await h.downloader.resume("w1")
        await #expect(throws: DownloadError.self) { try await h.downloader.cancel("w9") }
        #expect(await h.downloader.downloads().map(\.state) == [.downloading, .waiting, .waiting, .waiting])
        try await h.downloader.cancel("blocker")
        for id in ["w1", "w2", "w3"] { await h.recorder.state(id, .completed) }
        #expect(counter.order == ["blocker", "w1", "w2", "w3"])
        await h.cleanUp()
    }

    @Test("hasActiveDownloads, isDownloading, isWaiting")
    func queries() async throws {
        let h = Harness(maxConcurrent: 1)
        #expect(await !h.downloader.hasActiveDownloads)
        h.serve("a", size: 1000, chunkSize: 100)
        h.mock.script(h.url("a"), attempts: [.stall(at: 100)])
        h.serve("b", size: 100)
        try await h.downloader.start(id: "a", url: h.url("a"))
        try await h.downloader.start(id: "b", url: h.url("b"))
        await h.parked(2)
        #expect(await h.downloader.isDownloading("a"))
        #expect(await h.downloader.isWaiting("b"))
        #expect(await h.downloader.hasActiveDownloads)
        try await h.downloader.cancel("a")
        await h.recorder.state("b", .completed)
        #expect(await !h.downloader.hasActiveDownloads)
        await h.cleanUp()
    }
}
