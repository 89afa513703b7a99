import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// A download that does not fit waits for space (interrupted, `insufficientSpace`) instead of
/// failing half-way, and continues by itself, in queue order, when the downloader's tick finds
/// room. Small tmpfs file systems the test resizes (root, as in CI); the MockTransport on the
/// manual clock.
@Suite("Waiting for space", .serialized, .timeLimit(.minutes(2)))
struct SpaceWaitTests {
    static let mebibyte: Int64 = 1 << 20

    /// Waits until `id` is on hold for space (its onHold event at `from` or later).
    func onHold(_ h: Harness, _ id: String, from: Int = 0) async {
        _ = await h.recorder.first(from: from) { if case .onHold(id, .insufficientSpace) = $0 { true } else { false } }
        #expect(await h.downloader.info(of: id)?.waitReason == .insufficientSpace)
        #expect(await h.downloader.state(of: id) == .interrupted)
    }

    @Test("64 MiB on a 16 MiB file system waits without writing past the space; grown, it completes by itself")
    func waitsThenCompletes() async throws {
        let tmpfs = try TmpfsMount(size: "16m")
        defer { tmpfs.unmount() }
        let h = Harness(directory: tmpfs.url)
        let content = h.serve("big", size: 64 * Self.mebibyte, chunkSize: 1 << 20)
        try await h.downloader.start(id: "big", url: h.url("big"))
        await onHold(h, "big")
        let error = try #require(await h.downloader.info(of: "big"))
        #expect(error.lastErrorCode == .diskFull)
        #expect(error.lastError?.contains("too full") == true, "\(error)")
        #expect(h.mock.bytesServed(for: h.url("big")) == 0, "refused at the head, before any body byte")
        #expect(!FileManager.default.fileExists(atPath: tmpfs.path("big.part")))
        // Ticks without room: no attempt, no outcome.
        for _ in 0..<3 {
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
        }
        #expect(h.mock.requests(for: h.url("big")).count == 1)
        #expect(await h.downloader.state(of: "big") == .interrupted)

        try tmpfs.resize(to: "80m")
        await h.downloader.refresh()
        await h.recorder.state("big", .completed)
        #expect(h.contents(h.file("big")) == content.data)
        // The attempt after the growth starts from zero (it may then split the file: segments).
        let requests = h.mock.requests(for: h.url("big"))
        #expect(requests.count >= 2 && requests[1].offset == 0 && requests[1].end == nil, "\(requests)")
        #expect(!h.recorder.names(of: "big").contains("failed"))
        await h.cleanUp()
    }

    @Test("a known size that does not fit beside what the running downloads still need waits before any attempt, then goes in queue order")
    func countsOthersAndKeepsOrder() async throws {
        let tmpfs = try TmpfsMount(size: "8m")
        defer { tmpfs.unmount() }
        let h = Harness(maxConcurrent: 4, directory: tmpfs.url)
        let size = 5 * Self.mebibyte
        var contents: [String: MockContent] = [:]
        for (n, id) in ["a", "b", "c"].enumerated() {
            // "a" stalls half-way, so it runs (and still needs its second half) while the others start.
            contents[id] = h.serve(id, size: size, seed: UInt64(n + 1), chunkSize: 1 << 20)
        }
        h.mock.script(h.url("a"), attempts: [.stall(at: size / 2)])
        let options = DownloadOptions(expectedSize: size)
        try await h.downloader.start(id: "a", url: h.url("a"), options: options)
        await h.parked(2)  // the tick loop, and "a" stalls with half its bytes written
        try await h.downloader.start(id: "b", url: h.url("b"), options: options)
        try await h.downloader.start(id: "c", url: h.url("c"), options: options)
        await onHold(h, "b")
        await onHold(h, "c")
        #expect(h.mock.requests(for: h.url("b")).isEmpty && h.mock.requests(for: h.url("c")).isEmpty,
                "held before any attempt")
        #expect(await h.downloader.info(of: "b")?.attempts == 0)

        // "a" goes on (its stall cut by a pause and resume) and completes; 3 MiB left: still no room for 5.
        _ = try await h.downloader.pause("a")
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "b") == .interrupted)
        #expect(await h.downloader.state(of: "c") == .interrupted)

        // Room for one: the first in queue order goes, the other keeps waiting. The room comes from
        // growing the file system, not from deleting a completed file: the downloader lets go of
        // a completed download's staging descriptor as its attempt's task ends, which may be just
        // after the `completed` event, and a deleted file's space comes back only once it is
        // closed; the single tick below would then find no room, and on this clock no later tick
        // looks again.
        try tmpfs.resize(to: "13m")  // 8 MiB free
        let mark = h.recorder.count
        await h.downloader.refresh()
        await h.recorder.state("b", .completed, from: mark)
        #expect(h.contents(h.file("b")) == contents["b"]?.data)
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "c") == .interrupted)
        #expect(h.mock.requests(for: h.url("c")).isEmpty)
        try tmpfs.resize(to: "18m")  // 8 MiB free again
        await h.downloader.refresh()
        await h.recorder.state("c", .completed, from: mark)
        #expect(h.contents(h.file("c")) == contents["c"]?.data)
        await h.cleanUp()
    }

    @Test("with waitsForSpace off, a full disk leaves the download interrupted with no retry, as before")
    func offLeavesInterrupted() async throws {
        let tmpfs = try TmpfsMount(size: "2m")
        defer { tmpfs.unmount() }
        let h = Harness(directory: tmpfs.url, configure: { $0.waitsForSpace = false })
        h.serve("big", size: 4 * Self.mebibyte, chunkSize: 256 << 10)
        try await h.downloader.start(id: "big", url: h.url("big"))
        let interruption = await h.recorder.interruption(of: "big")
        #expect(interruption.error.code == .diskFull)
        #expect(interruption.retryIn == nil)
        if case .interrupted = try await h.downloader.outcome(of: "big") {} else { Issue.record("not an interrupted outcome") }
        #expect(!h.recorder.names(of: "big").contains { $0.hasPrefix("onHold") })
        #expect((FileValidation.size(tmpfs.path("big.part")) ?? 0) > 0, "the bytes that fitted are kept")
        await h.cleanUp()
    }

    @Test("a head announcing Int64.max bytes while another download runs is held for space, no trap")
    func hugeAnnouncedLength() async throws {
        let tmpfs = try TmpfsMount(size: "8m")
        defer { tmpfs.unmount() }
        let h = Harness(maxConcurrent: 4, directory: tmpfs.url)
        let size = 4 * Self.mebibyte
        _ = h.serve("a", size: size, chunkSize: 1 << 20)
        h.mock.script(h.url("a"), attempts: [.stall(at: size / 2)])
        h.mock.serve(h.url("huge"), MockResource(.seeded(seed: 2, size: 1024), announcedLength: .max - 10))
        try await h.downloader.start(id: "a", url: h.url("a"), options: DownloadOptions(expectedSize: size))
        await h.parked(2)  // "a" runs and still needs half its bytes
        try await h.downloader.start(id: "huge", url: h.url("huge"))
        await onHold(h, "huge")
        let info = try #require(await h.downloader.info(of: "huge"))
        #expect(info.lastErrorCode == .diskFull)
        #expect(info.lastError?.contains("too full") == true, "\(info)")
        for _ in 0..<2 {  // the ticks weigh it against the free space again
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
        }
        #expect(await h.downloader.state(of: "huge") == .interrupted)
        await h.cleanUp()
    }

    @Test("held behind what a running download needs, it continues once that download is paused")
    func continuesWhenOtherPauses() async throws {
        let tmpfs = try TmpfsMount(size: "8m")
        defer { tmpfs.unmount() }
        let h = Harness(maxConcurrent: 4, directory: tmpfs.url)
        let size = 5 * Self.mebibyte, small = 4 * Self.mebibyte
        _ = h.serve("b", size: size, chunkSize: 1 << 20)
        h.mock.script(h.url("b"), attempts: [.stall(at: size / 2)])
        let content = h.serve("a", size: small, seed: 2, chunkSize: 1 << 20)
        try await h.downloader.start(id: "b", url: h.url("b"), options: DownloadOptions(expectedSize: size))
        await h.parked(2)  // "b" runs with half its bytes written, needing 2.5 MiB more
        try await h.downloader.start(id: "a", url: h.url("a"), options: DownloadOptions(expectedSize: small))
        await onHold(h, "a")
        // "b" paused keeps its 2.5 MiB staging file: the free space does not grow, but it no longer
        // needs the rest now, so 4 MiB fit.
        _ = try await h.downloader.pause("b")
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }
}
