import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// ``DownloadOptions/mirrors``: other URLs of the same file, tried in turn after a failed
/// attempt, continuing bytes only under the same validator.
@Suite("Mirrors", .timeLimit(.minutes(2)))
struct MirrorTests {
    /// Awaits the next switch of `id` to another URL (an `interrupted` event with no delay) after
    /// event index `from`, and runs the tick that starts the attempt at it.
    func nextURL(_ h: Harness, _ id: String, from: Int) async {
        await h.recorder.first(from: from) { if case .interrupted(id, _, .some(.zero)) = $0 { true } else { false } }
        await h.downloader.refresh()
    }

    @Test("a URL that is not found is followed by the next mirror at once, without using a retry")
    func notFoundThenMirror() async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 0))
        let content = h.serve("m2", size: 40_000, seed: 3)
        try await h.downloader.start(id: "f", url: h.url("gone"), destination: h.file("f"),
                                     options: DownloadOptions(mirrors: [h.url("also-gone"), h.url("m2")]))
        await nextURL(h, "f", from: 0)
        let mark = h.recorder.count
        await nextURL(h, "f", from: mark)
        await h.recorder.state("f", .completed)
        #expect(h.contents(h.file("f")) == content.data)
        #expect(h.mock.requests(for: h.url("gone")).count == 1)
        #expect(h.mock.requests(for: h.url("also-gone")).count == 1)
        #expect(h.mock.requests(for: h.url("m2")).count == 1)
        await h.cleanUp()
    }

    @Test("a mirror with the same file continues the bytes; one with another file starts over, never splices",
          arguments: [true, false])
    func continuesOnlyTheSameFile(same: Bool) async throws {
        let h = Harness()
        let first = h.serve("a", size: 50_000, seed: 1, chunkSize: 1000)
        h.mock.script(h.url("a"), attempts: [.drop(at: 20_000)])
        let second = same ? h.serve("b", size: 50_000, seed: 1, chunkSize: 1000) : h.serve("b", size: 50_000, seed: 2, chunkSize: 1000)
        try await h.downloader.start(id: "a", url: h.url("a"), destination: h.file("a"),
                                     options: DownloadOptions(mirrors: [h.url("b")]))
        await nextURL(h, "a", from: 0)
        await h.recorder.state("a", .completed)
        let mirrorRequests = h.mock.requests(for: h.url("b"))
        #expect(mirrorRequests.first?.offset == 20_000, "asked to continue, with the validator of the bytes")
        #expect(mirrorRequests.first?.validator == first.defaultValidator)
        #expect(h.contents(h.file("a")) == second.data)
        let restarted = h.recorder.events(of: "a").contains { if case .restarted = $0 { true } else { false } }
        #expect(restarted == !same)
        #expect(h.mock.bytesServed(for: h.url("b")) == (same ? 30_000 : 50_000))
        await h.cleanUp()
    }

    @Test("bytes are never continued at another URL whose transport cannot compare validators: two files of one size are not spliced")
    func noComparisonStartsOver() async throws {
        let h = Harness(wrap: { NonValidatingTransport(inner: $0) })
        _ = h.serve("a", size: 50_000, seed: 1, chunkSize: 1000)
        h.mock.script(h.url("a"), attempts: [.drop(at: 20_000)])
        let second = h.serve("b", size: 50_000, seed: 2, chunkSize: 1000)
        try await h.downloader.start(id: "a", url: h.url("a"), destination: h.file("a"),
                                     options: DownloadOptions(mirrors: [h.url("b")]))
        await nextURL(h, "a", from: 0)
        await h.recorder.state("a", .completed)
        #expect(h.mock.requests(for: h.url("b")).first?.offset == 0, "started over at the mirror")
        #expect(h.contents(h.file("a")) == second.data)
        #expect(h.mock.bytesServed(for: h.url("b")) == 50_000)
        await h.cleanUp()
    }

    @Test("the log of an attempt names the URL it fetches: the mirror's after a switch")
    func attemptLogNamesTheMirror() async throws {
        let log = LogCapture()
        let h = Harness(logger: log.logger)
        let content = h.serve("m2", size: 1000, seed: 3)
        try await h.downloader.start(id: "f", url: h.url("gone"), destination: h.file("f"),
                                     options: DownloadOptions(mirrors: [h.url("m2")]))
        await nextURL(h, "f", from: 0)
        await h.recorder.state("f", .completed)
        #expect(h.contents(h.file("f")) == content.data)
        let starts = log.all.filter { $0.message.contains("attempt") && $0.message.contains("starts") }
        #expect(starts.map { $0.metadata["url"] } == [h.url("gone").absoluteString, h.url("m2").absoluteString])
        await h.cleanUp()
    }

    @Test("when every URL failed the retry policy decides, and a pass starts again at the first URL")
    func passesThenFailure() async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 1, initialDelay: .seconds(1), multiplier: 1, jitter: 0))
        let lost = DownloadError(.connectionLost, "lost")
        h.mock.serve(h.url("x"), MockResource(.seeded(seed: 1, size: 1000)))
        h.mock.serve(h.url("y"), MockResource(.seeded(seed: 1, size: 1000)))
        h.mock.script(h.url("x"), attempts: [.error(at: 0, lost), .error(at: 0, lost)])
        h.mock.script(h.url("y"), attempts: [.error(at: 0, lost), .error(at: 0, lost)])
        try await h.downloader.start(id: "x", url: h.url("x"), destination: h.file("x"),
                                     options: DownloadOptions(mirrors: [h.url("y")]))
        await nextURL(h, "x", from: 0)
        // The pass is over: a retry after the policy's delay, from the first URL.
        let pass = await h.recorder.first { if case .interrupted("x", _, .some(let d)) = $0, d > .zero { true } else { false } }
        if case .interrupted(_, _, let delay) = pass { #expect(delay == .seconds(1)) }
        let mark = h.recorder.count
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await nextURL(h, "x", from: mark)
        _ = await h.recorder.failure(of: "x")
        #expect(h.mock.requests(for: h.url("x")).count == 2)
        #expect(h.mock.requests(for: h.url("y")).count == 2)
        await h.cleanUp()
    }

    /// Adds a secret header field to every attempt, as `fdl get --header-secret` does.
    struct SecretAddingDelegate: DownloaderDelegate {
        func customizeTransfer(_ options: TransferOptions, id: String, url: URL) async -> TransferOptions {
            var options = options
            options.headers.append(HeaderField(name: "X-Api-Key", value: "from-the-delegate", isSecret: true))
            return options
        }
    }

    @Test("secret header fields, from the options or the delegate, go to mirrors of the first URL's origin only")
    func secretsStayWithTheFirstOrigin() async throws {
        let h = Harness(retry: RetryPolicy(maxRetries: 0), delegate: SecretAddingDelegate())
        let elsewhere = URL(string: "mock://other/m")!
        let content = MockContent.seeded(seed: 4, size: 30_000)
        h.mock.serve(elsewhere, MockResource(content))
        let headers = [HeaderField(name: "Authorization", value: "Bearer t"), HeaderField(name: "X-Plain", value: "p")]
        try await h.downloader.start(id: "f", url: h.url("gone"), destination: h.file("f"),
                                     options: DownloadOptions(transfer: TransferOptions(headers: headers),
                                                              mirrors: [h.url("also-gone"), elsewhere]))
        await nextURL(h, "f", from: 0)
        let mark = h.recorder.count
        await nextURL(h, "f", from: mark)
        await h.recorder.state("f", .completed)
        #expect(h.contents(h.file("f")) == content.data)
        let all = ["Authorization", "X-Plain", "X-Api-Key"]
        #expect(h.mock.requests(for: h.url("gone")).map { $0.headers.map(\.name) } == [all])
        #expect(h.mock.requests(for: h.url("also-gone")).map { $0.headers.map(\.name) } == [all], "same origin: same secrets")
        #expect(h.mock.requests(for: elsewhere).map { $0.headers.map(\.name) } == [["X-Plain"]], "another origin: no secret")
        await h.cleanUp()
    }
}
