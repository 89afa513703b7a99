import FileDownload
import FileDownloadMock
import Foundation
import Testing

@Suite("Pause, resume and resume data", .timeLimit(.minutes(2)))
struct ResumeTests {
    @Test("50 pause/resume cycles give a byte-identical file and never fetch a byte twice")
    func fiftyCycles() async throws {
        let h = Harness()
        let size: Int64 = 2_000_000
        let content = h.serve("big", size: size, seed: 99, chunkSize: 7_001, chunkDelay: .milliseconds(1))
        try await h.downloader.start(id: "big", url: h.url("big"))
        for cycle in 0..<50 {
            await h.parked(2)  // the tick loop and the transfer, waiting on the clock
            for _ in 0..<(cycle % 3 + 1) {
                h.clock.advance(by: .milliseconds(1))
                await h.parked(2)
            }
            let data = try #require(try await h.downloader.pause("big"))
            #expect(data.bytesOnDisk == FileValidation.size(h.file("big").path + ".part"))
            if cycle == 49 {
                // The same file, now served without delay, so the last attempt runs to the end.
                h.serve("big", size: size, seed: 99, chunkSize: 7_001)
            }
            try await h.downloader.resume("big")
        }
        await h.recorder.state("big", .completed)
        #expect(FileManager.default.contents(atPath: h.file("big").path) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        #expect(requests.count == 51)
        #expect(h.mock.bytesServed(for: h.url("big")) == size)
        for (previous, next) in zip(requests, requests.dropFirst()) {
            #expect(next.offset == previous.offset + previous.bytesDelivered)
            #expect(next.validator == content.defaultValidator)
        }
        await h.cleanUp()
    }

    @Test("a changed remote file restarts from zero and the result is the new content")
    func validatorChanged() async throws {
        let h = Harness()
        h.serve("a", size: 50_000, seed: 1, chunkSize: 1000)
        let newer = MockContent.seeded(seed: 2, size: 50_000)
        h.mock.script(h.url("a"), attempts: [.drop(at: 20_000), .changeContent(to: newer)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .interrupted)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == newer.data)
        let requests = h.mock.requests(for: h.url("a"))
        #expect(requests.map(\.offset) == [0, 20_000])
        #expect(requests[1].head?.disposition == .restarted(.validatorChanged))
        #expect(h.recorder.names(of: "a").contains("restarted:validatorChanged"))
        await h.cleanUp()
    }

    @Test("a server that ignores the range restarts cleanly")
    func rangeIgnored() async throws {
        let h = Harness()
        let content = h.serve("a", size: 50_000, chunkSize: 1000)
        h.mock.script(h.url("a"), attempts: [.drop(at: 30_000), .ignoreRange])
        try await h.downloader.start(id: "a", url: h.url("a"))
        await h.recorder.state("a", .interrupted)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        #expect(h.recorder.names(of: "a").contains("restarted:rangeIgnored"))
        await h.cleanUp()
    }

    @Test("resume data continues the download in another downloader (another process)")
    func acrossDownloaders() async throws {
        let first = Harness()
        let content = first.serve("a", size: 10_000, chunkSize: 500)
        first.mock.script(first.url("a"), attempts: [.stall(at: 4000)])
        try await first.downloader.start(id: "a", url: first.url("a"))
        await first.parked(2)
        let data = try #require(try await first.downloader.pause("a")).encoded()
        await first.downloader.shutdown()

        let second = Harness(directory: first.directory)
        second.serve("a", size: 10_000, chunkSize: 500)
        try await second.downloader.start(id: "a2", resumeData: data)
        await second.recorder.state("a2", .completed)
        #expect(second.contents(second.file("a")) == content.data)
        #expect(second.mock.requests(for: second.url("a")).map(\.offset) == [4000])
        await second.cleanUp()
    }

    @Test("resume data never trusts its byte count over the file on disk")
    func offsetFromDisk() async throws {
        let first = Harness()
        let content = first.serve("a", size: 10_000, chunkSize: 500)
        first.mock.script(first.url("a"), attempts: [.stall(at: 4000)])
        try await first.downloader.start(id: "a", url: first.url("a"))
        await first.parked(2)
        var data = try #require(try await first.downloader.pause("a"))
        await first.downloader.shutdown()
        data.bytesOnDisk = 9000  // lies
        let part = first.file("a").path + ".part"
        truncate(part, 2500)  // and the disk holds less than it said anyway

        let second = Harness(directory: first.directory)
        second.serve("a", size: 10_000, chunkSize: 500)
        try await second.downloader.start(id: "a", resumeData: data.encoded())
        await second.recorder.state("a", .completed)
        #expect(second.contents(second.file("a")) == content.data)
        #expect(second.mock.requests(for: second.url("a")).map(\.offset) == [2500])
        await second.cleanUp()
    }

    @Test("malformed resume data is a clear error and changes nothing", arguments: [
        Data(), Data("garbage".utf8), Data("{\"version\":1}".utf8), Data("{\"version\":99,\"id\":\"a\"}".utf8),
        Data(#"{"version":1,"id":"a","url":"mock://files/a","destination":"file:///tmp/a","partPath":"/tmp/a.part","bytesOnDisk":-5,"options":{"transfer":{},"priority":0}}"#.utf8),
        Data(#"{"version":1,"id":"","url":"mock://files/a","destination":"file:///tmp/a","partPath":"relative.part","bytesOnDisk":5,"options":{"transfer":{},"priority":0}}"#.utf8),
        Data(repeating: 0xFF, count: 100_000),
    ])
    func malformed(_ data: Data) async throws {
        let h = Harness()
        do {
            try await h.downloader.start(id: "x", resumeData: data)
            Issue.record("malformed resume data was accepted")
        } catch let error as DownloadError {
            #expect(error.code == .invalidResumeData, "\(error)")
        }
        #expect(await h.downloader.downloads().isEmpty)
        await h.cleanUp()
    }

    @Test("resume data cannot aim the staging file away from its destination")
    func foreignStagingPath() async throws {
        let h = Harness()
        let data = ResumeData(id: "a", url: h.url("a"), destination: h.file("a"), partPath: "/tmp/elsewhere.part",
                              bytesOnDisk: 0, validator: nil, expectedLength: nil, options: DownloadOptions())
        await #expect(throws: DownloadError.self) { try await h.downloader.start(id: "a", resumeData: data.encoded()) }
        #expect(await h.downloader.downloads().isEmpty)
        await h.cleanUp()
    }

    @Test("resume data round-trips and holds no secret")
    func noSecrets() async throws {
        let h = Harness()
        h.serve("a", size: 10_000, chunkSize: 500)
        let url = URL(string: "mock://user:secret-password@files/a")!
        h.mock.serve(url, MockResource(.seeded(seed: 1, size: 10_000), chunkSize: 500))
        h.mock.script(url, attempts: [.stall(at: 1000)])
        let options = DownloadOptions(transfer: TransferOptions(headers: [
            HeaderField(name: "Authorization", value: "Bearer top-secret-token"),
            HeaderField(name: "X-Plain", value: "visible"),
        ]))
        try await h.downloader.start(id: "a", url: url, options: options)
        await h.parked(2)
        let data = try #require(try await h.downloader.pause("a"))
        let text = String(decoding: data.encoded(), as: UTF8.self)
        #expect(!text.contains("secret-password"))
        #expect(!text.contains("top-secret-token"))
        #expect(text.contains("visible"))
        #expect(try ResumeData(decoding: data.encoded()) == data)
        await h.cleanUp()
    }
}

@Suite("Secrets never persist")
struct SecretTests {
    @Test("options without secrets drop sensitive headers and the proxy password, also when encoded")
    func options() throws {
        let options = TransferOptions(
            headers: [HeaderField(name: "Cookie", value: "session=s3cret"), HeaderField(name: "Accept", value: "*/*")],
            proxy: URL(string: "http://me:proxy-pass@127.0.0.1:3128")!
        )
        let text = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        #expect(!text.contains("s3cret"))
        #expect(!text.contains("proxy-pass"))
        #expect(text.contains("Accept"))
        #expect(options.withoutSecrets.proxy?.password == nil)
        #expect(options.withoutSecrets.headers == [HeaderField(name: "Accept", value: "*/*")])
    }
}
