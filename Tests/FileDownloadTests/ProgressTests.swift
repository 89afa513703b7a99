import FileDownload
import FileDownloadMock
import Foundation
import Testing

@Suite("Progress", .timeLimit(.minutes(3)))
struct ProgressTests {
    @Test("throttled to the interval, monotonic, never above the size, final event exactly once")
    func throttleMonotonicFinal() async throws {
        let h = Harness(progressInterval: .milliseconds(100))
        let size: Int64 = 100 * 10_000
        h.serve("a", size: size, chunkSize: 10_000, chunkDelay: .milliseconds(10))
        try await h.downloader.start(id: "a", url: h.url("a"))
        // 100 chunks, one every 10 ms of virtual time: 990 ms in all. Move time 10 ms at a time.
        for _ in 0..<99 {
            await h.parked(2)
            h.clock.advance(by: .milliseconds(10))
        }
        await h.recorder.state("a", .completed)
        await h.downloader.settle()
        let progress = h.recorder.events(of: "a").compactMap { if case .progress(_, let p) = $0 { p } else { nil } }
        // 990 ms at one event per 100 ms: at most 10 throttled events plus the final one.
        #expect(progress.count >= 5)
        #expect(progress.count <= 11)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.receivedBytes <= $1.receivedBytes })
        #expect(progress.allSatisfy { $0.receivedBytes <= size && $0.fractionCompleted <= 1 })
        #expect(progress.filter { $0.receivedBytes == size }.count == 1)
        #expect(progress.last?.fractionCompleted == 1)
        let names = h.recorder.names(of: "a")
        #expect(names.suffix(3) == ["progress", "state:completed", "completed"])
        let speed = progress.dropLast().last?.bytesPerSecond ?? 0
        #expect(speed > 900_000 && speed < 1_100_000, "10 KB per 10 ms is 1 MB/s, got \(speed)")
        await h.cleanUp()
    }

    @Test("nothing fires after a terminal state")
    func nothingAfterTerminal() async throws {
        let h = Harness(progressInterval: .milliseconds(100))
        h.serve("a", size: 1000)
        h.serve("b", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("b"), attempts: [.stall(at: 500)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        try await h.downloader.start(id: "b", url: h.url("b"))
        await h.recorder.state("a", .completed)
        await h.parked(2)
        try await h.downloader.cancel("b")
        for _ in 0..<5 {
            h.clock.advance(by: .milliseconds(100))
            await h.downloader.refresh()
        }
        await h.downloader.settle()
        #expect(h.recorder.names(of: "a").last == "completed")
        #expect(h.recorder.names(of: "b").last == "cancelled")
        await h.cleanUp()
    }

    @Test("total progress is by bytes, not a mean of fractions")
    func totalByBytes() async throws {
        let h = Harness(progressInterval: .milliseconds(100))
        h.serve("small", size: 100_000)
        h.serve("large", size: 900_000, chunkSize: 1000)
        h.mock.script(h.url("large"), attempts: [.stall(at: 0)])
        try await h.downloader.start(id: "small", url: h.url("small"))
        try await h.downloader.start(id: "large", url: h.url("large"))
        await h.recorder.state("small", .completed)
        await h.parked(2)
        let total = await h.downloader.totalProgress
        #expect(total.expectedBytes == 1_000_000)
        #expect(total.receivedOfKnownSize == 100_000)
        #expect(total.fractionCompleted == 0.1)
        await h.downloader.refresh()
        #expect(h.downloader.rootProgress.totalUnitCount == 1_000_000)
        #expect(h.downloader.rootProgress.completedUnitCount == 100_000)
        #expect(abs(h.downloader.rootProgress.fractionCompleted - 0.1) < 1e-9)
        let small = try #require(await h.downloader.nativeProgress(for: "small"))
        #expect(small.fractionCompleted == 1)  // made on this first call, from the current state
        #expect(await h.downloader.nativeProgress(for: "small") === small)
        #expect(await h.downloader.nativeProgress(for: "unknown") == nil)
        h.clock.advance(by: .milliseconds(100))
        await h.downloader.refresh()
        await h.downloader.settle()
        let totals = h.recorder.events.compactMap { if case .totalProgress(let t) = $0 { t } else { nil } }
        #expect(totals.last?.fractionCompleted == 0.1)
        await h.cleanUp()
    }

    @Test("the final total (100 %) comes before the last completed event, not one interval later",
          arguments: [1, 4])
    func finalTotalBeforeLastCompletion(maxConcurrent: Int) async throws {
        // No tick ever samples on its own; one at a time, the last completion still ends the queue.
        let h = Harness(maxConcurrent: maxConcurrent, progressInterval: .seconds(3600))
        for (index, id) in ["a", "b", "c"].enumerated() { h.serve(id, size: Int64(1000 * (index + 1))) }
        for id in ["a", "b", "c"] { try await h.downloader.start(id: id, url: h.url(id)) }
        let outcomes = try await h.downloader.outcomes(of: ["a", "b", "c"])
        #expect(outcomes.values.allSatisfy { $0.isCompleted })
        let events = h.recorder.events
        let lastCompleted = try #require(events.lastIndex { if case .completed = $0 { true } else { false } })
        let final = try #require(events.lastIndex { if case .totalProgress(let t) = $0 { t.fractionCompleted == 1 } else { false } })
        #expect(final < lastCompleted)
        guard case .totalProgress(let total) = events[final] else { return }
        #expect(total.receivedOfKnownSize == 6000)
        #expect(total.activeCount == 0)
        await h.cleanUp()
    }

    @Test("Foundation.Progress cancel and pause drive the downloader")
    func nativeProgressHandlers() async throws {
        let h = Harness()
        for id in ["a", "b"] {
            h.serve(id, size: 10_000, chunkSize: 500)
            h.mock.script(h.url(id), attempts: [.stall(at: 500)])
            try await h.downloader.start(id: id, url: h.url(id))
        }
        await h.parked(3)
        try #require(await h.downloader.nativeProgress(for: "a")).pause()
        try #require(await h.downloader.nativeProgress(for: "b")).cancel()
        await h.recorder.state("a", .paused)
        await h.recorder.state("b", .cancelled)
        try #require(await h.downloader.nativeProgress(for: "a")).resume()
        await h.recorder.state("a", .completed)
        await h.cleanUp()
    }
}
