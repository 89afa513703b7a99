import FileDownload
import FileDownloadMock
import Foundation
import Testing

@Suite("Bad input gets a clear error and loses nothing", .timeLimit(.minutes(1)))
struct BadInputTests {
    func code(_ body: () async throws -> Void) async -> DownloadError.Code? {
        do {
            try await body()
            return nil
        } catch let error as DownloadError {
            #expect(!error.message.isEmpty)
            return error.code
        } catch {
            Issue.record("not a DownloadError: \(error)")
            return nil
        }
    }

    @Test("an unknown scheme is refused at start")
    func unknownScheme() async throws {
        let h = Harness()
        let code = await code { try await h.downloader.start(id: "a", url: URL(string: "gopher://example/x")!) }
        #expect(code == .unsupportedScheme)
        #expect(await h.downloader.downloads().isEmpty)
        await h.cleanUp()
    }

    @Test("a URL without a scheme is refused")
    func noScheme() async throws {
        let h = Harness()
        let code = await code { try await h.downloader.start(id: "a", url: URL(string: "just/a/path")!) }
        #expect(code == .invalidURL)
        await h.cleanUp()
    }

    @Test("a duplicate id is refused and the first download is untouched")
    func duplicate() async throws {
        let h = Harness()
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 500)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.parked(2)
        let code = await code { try await h.downloader.start(id: "a", url: h.url("other")) }
        #expect(code == .duplicateIdentifier)
        #expect(await h.downloader.state(of: "a") == .downloading)
        #expect(h.mock.requests(for: h.url("other")).isEmpty)
        await h.cleanUp()
    }

    @Test("two downloads cannot write to the same destination")
    func sameDestination() async throws {
        let h = Harness()
        h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 500)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let code = await code { try await h.downloader.start(id: "b", url: URL(string: "mock://elsewhere/a")!) }
        #expect(code == .invalidDestination)
        await h.cleanUp()
    }

    @Test("names from URLs cannot leave the downloads directory", arguments: [
        "mock://files/..%2F..%2Fetc%2Fpasswd", "mock://files/%2E%2E", "mock://files/.hidden",
        "mock://files/a%00b", "mock://files/", "mock://files/%0Aline",
    ])
    func traversal(_ text: String) async throws {
        let h = Harness()
        let url = try #require(URL(string: text))
        h.mock.serve(url, MockResource(.bytes(Data("x".utf8))))
        let destination = try await h.downloader.start(id: "a", url: url)
        #expect(destination.deletingLastPathComponent().standardizedFileURL.path == h.directory.standardizedFileURL.path)
        let name = destination.lastPathComponent
        #expect(!name.hasPrefix("."))
        #expect(!name.contains("/"))
        #expect(!name.unicodeScalars.contains { $0.properties.generalCategory == .control })
        await h.recorder.state("a", .completed)
        await h.cleanUp()
    }

    @Test("the sanitiser", arguments: [
        ("../../etc/passwd", "_.._etc_passwd"), ("..", "download"), (".bashrc", "bashrc"),
        ("a\u{0}b\u{7}c", "abc"), ("  ", "download"), ("ok.iso", "ok.iso"), ("dir\\file", "dir_file"),
    ])
    func sanitiser(_ input: String, _ expected: String) {
        #expect(FileNameSanitizer.sanitize(input) == expected)
    }

    @Test("the sanitiser keeps its rules for any mix of tricky characters, and returns a plain name as it is")
    func sanitiserRules() {
        let pieces = ["a", "Z", "0", ".", "..", "/", "\\", ":", " ", "\t", "\u{0}", "\u{7F}", "\u{200B}", "\u{202E}", "é", "e\u{301}",
                      "%2F", "~", "-", String(repeating: "x", count: 120)]
        var random = SplitMix64(seed: 16)
        for _ in 0..<2_000 {
            let name = (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            let safe = FileNameSanitizer.sanitize(name)
            #expect(!safe.isEmpty && !safe.hasPrefix(".") && safe.utf8.count <= 200, "\(name.debugDescription) -> \(safe.debugDescription)")
            #expect(!safe.contains("/") && !safe.contains("\\") && !safe.contains(":"), "\(name.debugDescription)")
            #expect(!safe.unicodeScalars.contains { [.control, .format].contains($0.properties.generalCategory) },
                    "\(name.debugDescription) -> \(safe.debugDescription)")
            let plain = !name.isEmpty && name.utf8.count <= 200 && !name.hasPrefix(".")
                && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"/\\:".utf8.contains($0) }
            if plain { #expect(safe == name) }
        }
    }

    @Test("an unusable destination directory is a clear error, and other downloads go on")
    func unwritable() async throws {
        let h = Harness()
        h.serve("a", size: 1000)
        let content = h.serve("b", size: 1000, seed: 5)
        // A regular file where a directory should be: fails for root too (ENOTDIR / EEXIST).
        let notADirectory = h.directory.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: notADirectory)
        try await h.downloader.start(id: "a", url: h.url("a"), destination: notADirectory.appendingPathComponent("sub/a.bin"))
        try await h.downloader.start(id: "b", url: h.url("b"))
        let (error, _) = await h.recorder.failure(of: "a")
        // The parents are walked with O_NOFOLLOW from the downloads directory: a file on the way is
        // an unusable destination, named in the message.
        #expect(error.code == .invalidDestination, "\(error)")
        #expect(error.message.contains("plain-file"))
        await h.recorder.state("b", .completed)
        #expect(h.contents(h.file("b")) == content.data)
        #expect(h.contents(notADirectory) == Data("x".utf8))
        await h.cleanUp()
    }

    @Test("after shutdown new work is refused, and settle() and a second shutdown return at once")
    func afterShutdown() async throws {
        let h = Harness()
        await h.downloader.shutdown()
        let refused = await code { try await h.downloader.start(id: "late", url: URL(string: "mock://host/late")!) }
        #expect(refused == .invalidState)
        await h.downloader.settle()  // the journal is finished: its barrier is released, not lost
        await h.downloader.shutdown()
        #expect(await h.downloader.downloads().isEmpty)
        await h.cleanUp()
    }
}
