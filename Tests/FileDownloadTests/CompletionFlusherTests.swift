import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Logging
import Testing

/// Finished files are made durable in groups (``CompletionFlusher``): the files of a group are
/// flushed, then moved, then each directory is flushed once, and `completed` comes after all of it.
@Suite("Completions are durable in groups", .timeLimit(.minutes(1)))
struct CompletionFlusherTests {
    /// A harness whose finished files go through a paused flusher recording into `fs`, with
    /// `completed` events noted in the same log as they are published.
    static func harness(_ fs: RecordingFileSystem, delegate: (any DownloaderDelegate)? = nil, logger: Logger = Logger(label: "FileDownload"),
                        retry: RetryPolicy = RetryPolicy(maxRetries: 3, initialDelay: .seconds(1), multiplier: 2, jitter: 0))
        -> (Harness, CompletionFlusher) {
        let flusher = CompletionFlusher(fileSystem: fs)
        flusher.pause()
        let h = Harness(maxConcurrent: 8, retry: retry, delegate: delegate, logger: logger, configure: { $0.completionFlusher = flusher })
        h.downloader.observe { event in
            if case .completed(let id, _) = event { fs.note(.completed(id)) }
        }
        return (h, flusher)
    }

    /// Waits until `id` completed and its `completed` event is in `fs`'s log too: the recorder,
    /// subscribed first, may wake the test before the next observer noted the event.
    static func completed(_ id: String, _ h: Harness, _ fs: RecordingFileSystem) async throws {
        await h.recorder.state(id, .completed)
        try await poll("the completed event of \(id) is in the log") { fs.log.contains(.completed(id)) }
    }

    @Test("downloads that finish together: every data flush, then every move, then one flush per directory, then the completed events")
    func groupOrder() async throws {
        let fs = RecordingFileSystem()
        let (h, flusher) = Self.harness(fs)
        let sub = h.directory.appendingPathComponent("sub", isDirectory: true)
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let destinations = ["a": h.file("a"), "b": h.file("b"), "c": sub.appendingPathComponent("c"), "d": sub.appendingPathComponent("d")]
        var contents: [String: MockContent] = [:]
        for (n, (id, destination)) in destinations.sorted(by: { $0.key < $1.key }).enumerated() {
            contents[id] = h.serve(id, size: 30_000, seed: UInt64(n + 1))
            _ = try await h.downloader.start(id: id, url: h.url(id), destination: destination)
        }
        await flusher.waitUntilPending(4)
        flusher.resume()
        for id in destinations.keys { try await Self.completed(id, h, fs) }

        let parts = Set(destinations.values.map { $0.path + ".part" })
        #expect(fs.kinds == Array(repeating: "writeback", count: 4) + Array(repeating: "flush", count: 4)
                + Array(repeating: "move", count: 4) + ["directory", "directory"] + Array(repeating: "completed", count: 4),
                "\(fs.log)")
        #expect(Set(fs.log.compactMap { if case .flush(let p) = $0 { p } else { nil } }) == parts)
        #expect(Set(fs.log.compactMap { if case .move(let from, _) = $0 { from } else { nil } }) == parts)
        #expect(Set(fs.log.compactMap { if case .directory(let d) = $0 { d } else { nil } }) == [h.directory.path, sub.path])
        for (id, destination) in destinations {
            #expect(h.contents(destination) == contents[id]!.bytes(in: 0..<30_000), "\(id) in place, whole")
        }
        await h.cleanUp()
    }

    @Test("a lone download goes through at once: its flush, its move, its directory, then completed (no group to gather)")
    func loneFile() async throws {
        let fs = RecordingFileSystem()
        let (h, flusher) = Self.harness(fs)
        flusher.resume()
        let content = h.serve("a", size: 20_000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        try await Self.completed("a", h, fs)
        let part = h.file("a").path + ".part"
        #expect(fs.log == [.flush(part), .move(from: part, to: h.file("a").path), .directory(h.directory.path), .completed("a")])
        #expect(h.contents(h.file("a")) == content.bytes(in: 0..<20_000))
        await h.cleanUp()
    }

    @Test("a flush that fails (EIO) fails that download only: its file is not moved, the others of its group complete")
    func flushFailureFailsOne() async throws {
        let fs = RecordingFileSystem()
        let (h, flusher) = Self.harness(fs, retry: RetryPolicy(maxRetries: 0))
        fs.failFlush(of: h.file("b").path + ".part")
        for (n, id) in ["a", "b", "c"].enumerated() {
            h.serve(id, size: 10_000, seed: UInt64(n + 1))
            try await h.downloader.start(id: id, url: h.url(id))
        }
        await flusher.waitUntilPending(3)
        flusher.resume()
        try await Self.completed("a", h, fs)
        try await Self.completed("c", h, fs)
        let failure = await h.recorder.failure(of: "b")
        #expect(failure.error.code == .fileSystem)
        #expect(failure.error.message.contains("cannot flush"), "\(failure.error)")
        #expect(!FileManager.default.fileExists(atPath: h.file("b").path), "nothing moved to b's destination")
        #expect(!fs.log.contains { if case .move(let from, _) = $0 { from.hasSuffix("/b.part") } else { false } })
        #expect(fs.kinds == ["writeback", "writeback", "writeback", "flush", "flush", "move", "move", "directory", "completed", "completed"],
                "\(fs.log)")
        await h.cleanUp()
    }

    @Test("each device has its own queue: while one device's flush hangs, a download on another device completes; the held one completes once released")
    func hungDeviceHoldsOnlyItsOwn() async throws {
        let fs = RecordingFileSystem()
        let (h, flusher) = Self.harness(fs)
        flusher.resume()
        let slow = h.file("slow").path + ".part", fast = h.file("fast").path + ".part"
        fs.place(slow, onDevice: 1)
        fs.place(fast, onDevice: 2)
        let hold = fs.hold(flushOf: slow)
        let slowContent = h.serve("slow", size: 20_000, seed: 1), fastContent = h.serve("fast", size: 20_000, seed: 2)
        try await h.downloader.start(id: "slow", url: h.url("slow"))
        await hold.reached()
        try await h.downloader.start(id: "fast", url: h.url("fast"))
        try await Self.completed("fast", h, fs)
        #expect(fs.log == [.flush(fast), .move(from: fast, to: h.file("fast").path), .directory(h.directory.path), .completed("fast")],
                "the held device's file is neither flushed, moved nor completed meanwhile: \(fs.log)")
        #expect(!FileManager.default.fileExists(atPath: h.file("slow").path))
        hold.release()
        try await Self.completed("slow", h, fs)
        #expect(Array(fs.log.dropFirst(4)) == [.flush(slow), .move(from: slow, to: h.file("slow").path), .directory(h.directory.path),
                                               .completed("slow")], "\(fs.log)")
        #expect(h.contents(h.file("fast")) == fastContent.bytes(in: 0..<20_000))
        #expect(h.contents(h.file("slow")) == slowContent.bytes(in: 0..<20_000))
        await h.cleanUp()
    }

    @Test("a directory flush the file system refuses (EINVAL) fails nothing: the downloads moved there complete, each with a warning logged; the other directory's download without")
    func refusedDirectoryFlushIsLogged() async throws {
        let fs = RecordingFileSystem(), log = LogCapture()
        let (h, flusher) = Self.harness(fs, logger: log.logger)
        let sub = h.directory.appendingPathComponent("sub", isDirectory: true)
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        fs.refuseDirectoryFlush(of: sub.path)
        let destinations = ["a": sub.appendingPathComponent("a"), "b": sub.appendingPathComponent("b"), "c": h.file("c")]
        for (n, (id, destination)) in destinations.sorted(by: { $0.key < $1.key }).enumerated() {
            h.serve(id, size: 10_000, seed: UInt64(n + 1))
            _ = try await h.downloader.start(id: id, url: h.url(id), destination: destination)
        }
        await flusher.waitUntilPending(3)
        flusher.resume()
        for id in destinations.keys { try await Self.completed(id, h, fs) }
        #expect(fs.kinds == ["writeback", "writeback", "writeback", "flush", "flush", "flush", "move", "move", "move", "directory",
                             "completed", "completed", "completed"], "\(fs.log)")
        let warnings = log.all.map(\.message).filter { $0.contains("its directory could not be flushed") }
        #expect(warnings.count == 2, "\(log.all.map(\.message))")
        for id in ["a", "b"] {
            #expect(warnings.contains { $0.contains("download '\(id)'") && $0.contains(sub.path) && $0.contains("cannot flush the directory") })
            #expect(FileManager.default.fileExists(atPath: destinations[id]!.path))
        }
        #expect(!warnings.contains { $0.contains("download 'c'") })
        await h.cleanUp()
    }

    @Test("a download paused or cancelled while its group is held is never moved and ends as asked; the others of its group complete",
          arguments: ["pause", "cancel"])
    func stoppedWhileHeld(_ how: String) async throws {
        let fs = RecordingFileSystem()
        let (h, flusher) = Self.harness(fs)
        for (n, id) in ["a", "b", "c"].enumerated() {
            h.serve(id, size: 10_000, seed: UInt64(n + 1))
            try await h.downloader.start(id: id, url: h.url(id))
        }
        await flusher.waitUntilPending(3)
        let stopping = Task {
            if how == "pause" { _ = try await h.downloader.pause("b") } else { try await h.downloader.cancel("b") }
        }
        await h.parked(2)  // the tick loop and b's stop deadline: b was asked to stop
        flusher.resume()
        try await Self.completed("a", h, fs)
        try await Self.completed("c", h, fs)
        try await stopping.value
        #expect(await h.downloader.state(of: "b") == (how == "pause" ? .paused : .cancelled))
        #expect(!h.recorder.states(of: "b").contains(.completed))
        #expect(!FileManager.default.fileExists(atPath: h.file("b").path), "nothing moved to b's destination")
        #expect(!fs.log.contains { if case .move(let from, _) = $0 { from.hasSuffix("/b.part") } else { false } }, "\(fs.log)")
        if how == "pause" {
            #expect(h.contents(URL(fileURLWithPath: h.file("b").path + ".part"))?.count == 10_000, "paused: its bytes kept in staging")
        }
        await h.cleanUp()
    }

    @Test("a move that fails in a group (the staging file replaced while the group was held) fails that download only; the others complete")
    func moveFailureFailsOne() async throws {
        let fs = RecordingFileSystem()
        let (h, flusher) = Self.harness(fs, retry: RetryPolicy(maxRetries: 0))
        var contents: [String: MockContent] = [:]
        for (n, id) in ["a", "b", "c"].enumerated() {
            contents[id] = h.serve(id, size: 10_000, seed: UInt64(n + 1))
            try await h.downloader.start(id: id, url: h.url(id))
        }
        await flusher.waitUntilPending(3)
        let part = h.file("b").path + ".part"
        try FileManager.default.removeItem(atPath: part)
        #expect(FileManager.default.createFile(atPath: part, contents: Data("planted".utf8)))
        flusher.resume()
        try await Self.completed("a", h, fs)
        try await Self.completed("c", h, fs)
        let failure = await h.recorder.failure(of: "b")
        #expect(failure.error.code == .validationFailed)
        #expect(failure.error.message.contains("was replaced"), "\(failure.error)")
        #expect(!FileManager.default.fileExists(atPath: h.file("b").path), "the planted file is not moved to b's destination")
        #expect(fs.kinds == ["writeback", "writeback", "writeback", "flush", "flush", "flush", "move", "move", "directory",
                             "completed", "completed"], "\(fs.log)")
        for id in ["a", "c"] { #expect(h.contents(h.file(id)) == contents[id]!.bytes(in: 0..<10_000)) }
        await h.cleanUp()
    }

    /// Notes the delegate's last word in the file system's log.
    final class Asking: DownloaderDelegate {
        let fs: RecordingFileSystem
        init(_ fs: RecordingFileSystem) { self.fs = fs }
        func download(_ id: String, willMoveTo destination: URL) async throws { fs.note(.asked(id)) }
    }

    @Test("with a delegate: the flush, then its last word, then the move and the directory, then completed")
    func delegateBetweenFlushAndMove() async throws {
        let fs = RecordingFileSystem()
        let (h, flusher) = Self.harness(fs, delegate: Asking(fs))
        flusher.resume()
        h.serve("a", size: 20_000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        try await Self.completed("a", h, fs)
        let part = h.file("a").path + ".part"
        #expect(fs.log == [.flush(part), .asked("a"), .move(from: part, to: h.file("a").path), .directory(h.directory.path), .completed("a")])
        await h.cleanUp()
    }
}
