import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// One test per row of docs/states.md.
@Suite("State transitions (docs/states.md)", .timeLimit(.minutes(1)))
struct StateTransitionTests {
    @Test("row 1: add registers a not-started download")
    func row1() async throws {
        let h = Harness()
        h.serve("a", size: 100)
        let destination = try await h.downloader.add(id: "a", url: h.url("a"))
        #expect(await h.downloader.state(of: "a") == .notStarted)
        #expect(destination == h.file("a").standardizedFileURL)
        await h.downloader.settle()
        #expect(h.recorder.names(of: "a") == ["state:notStarted"])
        #expect(h.mock.allRequests.isEmpty)
        await h.cleanUp()
    }

    @Test("row 2 and 6 and 10: start runs to completion through waiting and downloading")
    func row2() async throws {
        let h = Harness()
        let content = h.serve("a", size: 100_000)
        try await h.downloader.add(id: "a", url: h.url("a"))
        try await h.downloader.start(id: "a")
        await h.recorder.state("a", .completed)
        #expect(h.recorder.states(of: "a") == [.notStarted, .waiting, .downloading, .completed])
        #expect(h.contents(h.file("a")) == content.data)
        #expect(!FileManager.default.fileExists(atPath: h.file("a").path + ".part"))
        await h.cleanUp()
    }

    @Test("row 3: resume of a not-started download starts it")
    func row3() async throws {
        let h = Harness()
        h.serve("a", size: 100)
        try await h.downloader.add(id: "a", url: h.url("a"))
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        await h.cleanUp()
    }

    @Test("row 4: cancel of a not-started download")
    func row4() async throws {
        let h = Harness()
        h.serve("a", size: 100)
        try await h.downloader.add(id: "a", url: h.url("a"))
        try await h.downloader.cancel("a")
        await h.downloader.settle()
        #expect(h.recorder.names(of: "a") == ["state:notStarted", "state:cancelled", "cancelled"])
        #expect(h.mock.allRequests.isEmpty)
        await h.cleanUp()
    }

    @Test("row 5: pause of a not-started download is refused")
    func row5() async throws {
        let h = Harness()
        h.serve("a", size: 100)
        try await h.downloader.add(id: "a", url: h.url("a"))
        await expectError(.invalidState) { try await h.downloader.pause("a") }
        #expect(await h.downloader.state(of: "a") == .notStarted)
        await h.cleanUp()
    }

    @Test("rows 6, 7, 8, 9: waiting downloads start when a slot frees, pause and cancel cleanly")
    func rows6to9() async throws {
        let h = Harness(maxConcurrent: 1)
        try await h.stalled()
        h.serve("b", size: 100)
        h.serve("c", size: 100)
        h.serve("d", size: 100)
        try await h.downloader.start(id: "b", url: h.url("b"))
        try await h.downloader.start(id: "c", url: h.url("c"))
        try await h.downloader.start(id: "d", url: h.url("d"))
        #expect(await h.downloader.isWaiting("b"))
        // row 7
        let data = try await h.downloader.pause("b")
        #expect(data?.bytesOnDisk == 0)
        #expect(await h.downloader.state(of: "b") == .paused)
        // row 8
        try await h.downloader.cancel("c")
        #expect(await h.downloader.state(of: "c") == .cancelled)
        // row 9
        try await h.downloader.resume("d")
        #expect(await h.downloader.state(of: "d") == .waiting)
        // row 6: the slot frees up, d (not the paused b, not the cancelled c) runs
        try await h.downloader.cancel("a")
        await h.recorder.state("d", .completed)
        await h.downloader.settle()
        #expect(await h.downloader.state(of: "b") == .paused)
        #expect(h.mock.requests(for: h.url("b")).isEmpty)
        #expect(h.mock.requests(for: h.url("c")).isEmpty)
        #expect(h.recorder.names(of: "b") == ["state:notStarted", "state:waiting", "state:paused", "paused"])
        #expect(h.recorder.names(of: "c") == ["state:notStarted", "state:waiting", "state:cancelled", "cancelled"])
        await h.cleanUp()
    }

    @Test("row 11: pause of a downloading download keeps its bytes and resume data")
    func row11() async throws {
        let h = Harness()
        try await h.stalled()
        let data = try #require(try await h.downloader.pause("a"))
        #expect(data.bytesOnDisk == 1000)
        #expect(await h.downloader.state(of: "a") == .paused)
        #expect(FileValidation.size(h.file("a").path + ".part") == 1000)
        await h.downloader.settle()
        #expect(Array(h.recorder.names(of: "a").suffix(3)) == ["progress", "state:paused", "paused"])
        await h.cleanUp()
    }

    @Test("row 12: cancel of a downloading download deletes the staging file")
    func row12() async throws {
        let h = Harness()
        try await h.stalled()
        try await h.downloader.cancel("a")
        #expect(await h.downloader.state(of: "a") == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: h.file("a").path + ".part"))
        #expect(!FileManager.default.fileExists(atPath: h.file("a").path))
        await h.downloader.settle()
        #expect(Array(h.recorder.names(of: "a").suffix(2)) == ["state:cancelled", "cancelled"])
        await h.cleanUp()
    }

    @Test("row 13 and 21: a retryable failure interrupts, and the retry resumes at the offset")
    func row13() async throws {
        let h = Harness()
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.drop(at: 3000)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (error, retryIn) = await h.recorder.interruption(of: "a")
        #expect(error.code == .connectionLost)
        #expect(retryIn == .seconds(1))
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0, 3000])
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }

    @Test("row 14: retries exhausted fail the download and keep its bytes")
    func row14() async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 1, initialDelay: .seconds(1), jitter: 0))
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.drop(at: 1000), .drop(at: 2000)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .interrupted)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        let (error, data) = await h.recorder.failure(of: "a")
        #expect(error.code == .connectionLost)
        #expect(data?.bytesOnDisk == 2000)
        #expect(FileValidation.size(h.file("a").path + ".part") == 2000)
        await h.cleanUp()
    }

    @Test("row 15: a failure that is not retryable fails at once")
    func row15() async throws {
        let h = Harness()
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.error(at: 500, DownloadError(.permissionDenied, "no"))])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .failed)
        #expect(h.mock.requests(for: h.url("a")).count == 1)
        #expect(await h.downloader.resumeData(for: "a")?.bytesOnDisk == 500)
        await h.cleanUp()
    }

    @Test("row 16: a file failing validation is discarded and the destination is untouched")
    func row16() async throws {
        let h = Harness()
        h.serve("a", size: 1000)
        try Data("old".utf8).write(to: h.file("a"))
        try await h.downloader.start(id: "a", url: h.url("a"), options: DownloadOptions(sha256: String(repeating: "0", count: 64)))
        let (error, data) = await h.recorder.failure(of: "a")
        #expect(error.code == .validationFailed)
        #expect(data == nil)
        #expect(h.contents(h.file("a")) == Data("old".utf8))
        #expect(!FileManager.default.fileExists(atPath: h.file("a").path + ".part"))
        await h.cleanUp()
    }

    @Test("row 17: disk full interrupts without an automatic retry and keeps the bytes")
    func row17() async throws {
        let h = Harness()
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.error(at: 1500, DownloadError(.diskFull, "full"))])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let (error, retryIn) = await h.recorder.interruption(of: "a")
        #expect(error.code == .diskFull)
        #expect(retryIn == nil)
        h.clock.advance(by: .seconds(3600))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .interrupted)
        #expect(FileValidation.size(h.file("a").path + ".part") == 1500)
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        await h.cleanUp()
    }

    @Test("row 18: the request timeout interrupts a silent transfer")
    func row18() async throws {
        let h = Harness(transfer: TransferOptions(requestTimeout: .seconds(10)))
        try await h.stalled()
        await h.downloader.refresh()
        h.clock.advance(by: .milliseconds(9_999))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .downloading)
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        let (error, _) = await h.recorder.interruption(of: "a")
        #expect(error.code == .timedOut)
        await h.cleanUp()
    }

    @Test("row 19: the resource timeout fails a download active for too long")
    func row19() async throws {
        let h = Harness(transfer: TransferOptions(requestTimeout: .seconds(1000), resourceTimeout: .seconds(30)))
        try await h.stalled()
        h.clock.advance(by: .milliseconds(29_999))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .downloading)
        h.clock.advance(by: .milliseconds(1))
        await h.downloader.refresh()
        let (error, data) = await h.recorder.failure(of: "a")
        #expect(error.code == .resourceTimedOut)
        #expect(data?.bytesOnDisk == 1000)
        await h.cleanUp()
    }

    @Test("row 20: shutdown interrupts running downloads")
    func row20() async throws {
        let h = Harness()
        try await h.stalled()
        let recorder = h.recorder
        await h.downloader.shutdown()
        #expect(await h.downloader.state(of: "a") == .interrupted)
        #expect(Array(recorder.names(of: "a").suffix(2)) == ["state:interrupted", "interrupted"])
        try? FileManager.default.removeItem(at: h.directory)
    }

    @Test("rows 22, 23, 24: an interrupted download can be resumed, paused or cancelled")
    func rows22to24() async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 3, initialDelay: .seconds(60), jitter: 0))
        for id in ["r", "p", "c"] {
            h.serve(id, size: 4000, chunkSize: 500)
            h.mock.script(h.url(id), attempts: [.drop(at: 1000)])
            try await h.downloader.start(id: id, url: h.url(id))
            await h.recorder.state(id, .interrupted)
        }
        try await h.downloader.resume("r")
        await h.recorder.state("r", .completed)
        let data = try await h.downloader.pause("p")
        #expect(data?.bytesOnDisk == 1000)
        try await h.downloader.cancel("c")
        #expect(!FileManager.default.fileExists(atPath: h.file("c").path + ".part"))
        h.clock.advance(by: .seconds(120))
        await h.downloader.refresh()
        await h.downloader.settle()
        #expect(await h.downloader.state(of: "p") == .paused)
        #expect(await h.downloader.state(of: "c") == .cancelled)
        #expect(h.mock.requests(for: h.url("p")).count == 1)
        #expect(h.recorder.names(of: "r").contains("resumed"))
        await h.cleanUp()
    }

    @Test("rows 25, 26, 27: a paused download resumes, pauses again harmlessly, or cancels")
    func rows25to27() async throws {
        let h = Harness()
        try await h.stalled()
        let first = try await h.downloader.pause("a")
        let again = try await h.downloader.pause("a")
        #expect(first == again)
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        #expect(h.mock.requests(for: h.url("a")).map(\.offset) == [0, 1000])
        try await h.stalled("b")
        try await h.downloader.pause("b")
        try await h.downloader.cancel("b")
        #expect(await h.downloader.state(of: "b") == .cancelled)
        await h.cleanUp()
    }

    @Test("rows 28, 29, 30: a failed download resumes from its bytes, cancels, cannot pause")
    func rows28to30() async throws {
        let h = Harness()
        for id in ["f", "g"] {
            h.serve(id, size: 4000, chunkSize: 500)
            h.mock.script(h.url(id), attempts: [.error(at: 1000, DownloadError(.permissionDenied, "no"))])
            try await h.downloader.start(id: id, url: h.url(id))
            await h.recorder.state(id, .failed)
        }
        await expectError(.invalidState) { try await h.downloader.pause("f") }
        try await h.downloader.resume("f")
        await h.recorder.state("f", .completed)
        #expect(h.mock.requests(for: h.url("f")).map(\.offset) == [0, 1000])
        try await h.downloader.cancel("g")
        #expect(await h.downloader.state(of: "g") == .cancelled)
        await h.cleanUp()
    }

    @Test("rows 31, 32: completed and cancelled downloads refuse pause, resume and cancel")
    func rows31and32() async throws {
        let h = Harness()
        h.serve("done", size: 100)
        try await h.downloader.start(id: "done", url: h.url("done"))
        await h.recorder.state("done", .completed)
        h.serve("gone", size: 100)
        try await h.downloader.add(id: "gone", url: h.url("gone"))
        try await h.downloader.cancel("gone")
        for id in ["done", "gone"] {
            await expectError(.invalidState) { try await h.downloader.pause(id) }
            await expectError(.invalidState) { try await h.downloader.resume(id) }
            await expectError(.invalidState) { try await h.downloader.cancel(id) }
        }
        try await h.downloader.remove("done")
        #expect(await h.downloader.state(of: "done") == nil)
        #expect(FileManager.default.fileExists(atPath: h.file("done").path))
        await h.cleanUp()
    }

    @Test("rows 33, 34: restore after a crash resumes running downloads and reports vanished files")
    func rows33and34() async throws {
        let store = InMemoryDownloadStore()
        let first = Harness(store: store)
        try await first.stalled("running")
        first.serve("done", size: 100)
        try await first.downloader.start(id: "done", url: first.url("done"))
        await first.recorder.state("done", .completed)
        first.clock.advance(by: .seconds(1))
        await first.downloader.refresh()  // checkpoint of "running" (1000 bytes)
        await first.downloader.settle()
        #expect(await store.record(for: "running")?.checkpointedBytes == 1000)
        try FileManager.default.removeItem(at: first.file("done"))
        // The process "dies": a new downloader on the same store and directory.
        let second = Harness(store: store, directory: first.directory)
        second.serve("running", size: 10_000, chunkSize: 500)
        let report = try await second.downloader.restore()
        #expect(report.resumed == ["running"])
        #expect(report.vanished == ["done"])
        #expect(await second.downloader.state(of: "done") == .failed)
        await second.recorder.state("running", .completed)
        #expect(second.mock.requests(for: second.url("running")).map(\.offset) == [1000])
        await first.downloader.shutdown()
        await second.cleanUp()
    }

    @Test("an unknown id changes nothing")
    func unknownID() async throws {
        let h = Harness()
        try await h.stalled()
        await expectError(.unknownIdentifier) { try await h.downloader.cancel("nope") }
        await expectError(.unknownIdentifier) { try await h.downloader.pause("nope") }
        await expectError(.unknownIdentifier) { try await h.downloader.resume("nope") }
        #expect(await h.downloader.state(of: "a") == .downloading)
        #expect(await h.downloader.downloads().map(\.id) == ["a"])
        await h.cleanUp()
    }
}
