import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// ``DownloadOptions/usesSuggestedFileName``: the server's name, sanitised, in the destination's
/// directory, never over a file or another download's name; and ``RemoteFileCheck``.
@Suite("Names from the server", .timeLimit(.minutes(2)))
struct SuggestedFileNameTests {
    func serve(_ h: Harness, _ name: String, suggesting suggested: String?, seed: UInt64 = 1) -> MockContent {
        let content = MockContent.seeded(seed: seed, size: 5_000)
        h.mock.serve(h.url(name), MockResource(content, suggestedFilename: suggested))
        return content
    }

    func download(_ h: Harness, _ id: String, uses: Bool = true) async throws -> URL {
        try await h.downloader.start(id: id, url: h.url(id), destination: h.file(id),
                                     options: DownloadOptions(usesSuggestedFileName: uses))
        let event = await h.recorder.first { if case .completed(id, _) = $0 { true } else { false } }
        guard case .completed(_, let file) = event else { throw CancellationError() }
        return file
    }

    @Test("the sanitised name is used in the destination's directory and recorded as the destination",
          arguments: [("report.pdf", "report.pdf"), ("../../etc/x", FileNameSanitizer.sanitize("../../etc/x")),
                      (".hidden", "hidden"), ("a/b", "a_b"), ("été.txt", "été.txt")])
    func sanitised(suggested: String, expected: String) async throws {
        let h = Harness()
        let content = serve(h, "d", suggesting: suggested)
        let file = try await download(h, "d")
        #expect(file == h.file(expected))
        #expect(h.contents(h.file(expected)) == content.data)
        #expect(!FileManager.default.fileExists(atPath: h.file("d").path))
        #expect(await h.downloader.info(of: "d")?.destination == h.file(expected))
        await h.cleanUp()
    }

    @Test("downloads the server names alike, completing at the same moment, all survive under their own names")
    func sameNameAtOnce() async throws {
        let count = 12
        let barrier = CompletionBarrier(count: count)
        let h = Harness(maxConcurrent: count, delegate: barrier, configure: { $0.maxConnectionsPerHost = count })
        let contents = (0..<count).map { serve(h, "d\($0)", suggesting: "report.pdf", seed: UInt64($0 + 1)) }
        for i in 0..<count {
            try await h.downloader.start(id: "d\(i)", url: h.url("d\(i)"), destination: h.file("d\(i)"),
                                         options: DownloadOptions(usesSuggestedFileName: true))
        }
        var files: [URL] = []
        for i in 0..<count {
            let event = await h.recorder.first { if case .completed("d\(i)", _) = $0 { true } else { false } }
            if case .completed(_, let file) = event { files.append(file) }
        }
        #expect(Set(files).count == count, "one file each: \(files.map(\.lastPathComponent))")
        for (file, content) in zip(files, contents) {
            #expect(h.contents(file) == content.data, "\(file.lastPathComponent) holds its own download's bytes")
        }
        await h.cleanUp()
    }

    @Test("the move that never replaces: a file at the name stays, and the staging file too")
    func moveWithoutReplacing() async throws {
        let h = Harness()
        let part = h.file("x.part"), taken = h.file("taken"), free = h.file("free")
        try Data("new".utf8).write(to: part)
        try Data("mine".utf8).write(to: taken)
        #expect(try FileDownload.FileValidation.moveWithoutReplacing(from: part.path, to: taken.path) == false)
        #expect(h.contents(taken) == Data("mine".utf8))
        #expect(h.contents(part) == Data("new".utf8))
        #expect(try FileDownload.FileValidation.moveWithoutReplacing(from: part.path, to: free.path))
        #expect(h.contents(free) == Data("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: part.path))
        await h.cleanUp()
    }

    @Test("a name that is taken (a file, a staging file, another download's destination) gets the next number")
    func takenNames() async throws {
        let h = Harness()
        try Data("mine".utf8).write(to: h.file("r.txt"))
        try Data("partial".utf8).write(to: h.file("r.1.txt.part"))
        _ = serve(h, "slow", suggesting: nil)
        h.mock.script(h.url("slow"), attempts: [.stall(at: 100)])
        try await h.downloader.start(id: "slow", url: h.url("slow"), destination: h.file("r.2.txt"))
        let content = serve(h, "d", suggesting: "r.txt", seed: 2)
        let file = try await download(h, "d")
        #expect(file == h.file("r.3.txt"))
        #expect(h.contents(h.file("r.3.txt")) == content.data)
        #expect(h.contents(h.file("r.txt")) == Data("mine".utf8))
        await h.cleanUp()
    }

    @Test("without the option, or without a suggestion, the destination is used as given")
    func asGiven() async throws {
        let h = Harness()
        _ = serve(h, "a", suggesting: "other.bin")
        _ = serve(h, "b", suggesting: nil)
        #expect(try await download(h, "a", uses: false) == h.file("a"))
        #expect(try await download(h, "b") == h.file("b"))
        await h.cleanUp()
    }

    @Test("RemoteFileCheck: unchanged, changed (stopped before the body) and an error")
    func remoteCheck() async throws {
        let h = Harness()
        let content = h.serve("c", size: 3_000, seed: 5)
        let scratch = h.directory
        let unchanged = try await RemoteFileCheck.check(url: h.url("c"), length: 3_000, validator: content.defaultValidator,
                                                        transport: h.mock, scratchDirectory: scratch)
        #expect(unchanged == .unchanged)
        let newer = h.serve("c", size: 3_000, seed: 6)
        let changed = try await RemoteFileCheck.check(url: h.url("c"), length: 3_000, validator: content.defaultValidator,
                                                      transport: h.mock, scratchDirectory: scratch)
        guard case .changed(let head) = changed else { Issue.record("expected changed, got \(changed)"); return }
        #expect(head.validator == newer.defaultValidator)
        #expect(h.mock.requests(for: h.url("c")).last?.bytesDelivered == 0, "no body byte was taken")
        await #expect(throws: DownloadError.self) {
            _ = try await RemoteFileCheck.check(url: h.url("none"), length: 3_000, validator: nil,
                                                transport: h.mock, scratchDirectory: scratch)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".check-") }
        #expect(left.isEmpty, "scratch files are removed")
        await h.cleanUp()
    }
}
