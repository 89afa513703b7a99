import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// Expiring links: a refusal (401/403/410) after the download began, or an expiry time the caller
/// gave, asks for a fresh URL (event, then the delegate); the download continues from its bytes
/// when the new URL serves the same resource, and starts from zero otherwise.
/// ``Downloader/updateURL(id:to:expiresAt:)`` re-points a download on request. MockTransport on
/// the manual clock.
@Suite("Expiring links", .timeLimit(.minutes(1)))
struct URLRefreshTests {
    /// Answers the fresh-URL question with the next URL of its list (then `nil`), and records
    /// what it was asked.
    final class Refresher: DownloaderDelegate {
        private let state: Mutex<(answers: [URL], asked: [URLRefreshReason])>
        init(_ answers: [URL]) { state = Mutex((answers, [])) }
        var asked: [URLRefreshReason] { state.withLock { $0.asked } }
        func freshURL(forID id: String, current: URL, reason: URLRefreshReason) async -> URL? {
            state.withLock { s in
                s.asked.append(reason)
                return s.answers.isEmpty ? nil : s.answers.removeFirst()
            }
        }
    }

    /// Starts "a", whose first attempt is dropped, and lets its retry go (the refusal).
    func startAndRetry(_ h: Harness) async throws {
        try await h.downloader.start(id: "a", url: h.url("a"))
        _ = await h.recorder.interruption(of: "a")
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
    }

    @Test("a 403 after bytes asks for a fresh URL; the same file there continues from the bytes")
    func refusedThenContinues() async throws {
        let refresher = Refresher([URL(string: "mock://files/a-fresh")!])
        let h = Harness(delegate: refresher)
        let content = h.serve("a", size: 20_000, chunkSize: 1_000)
        h.serve("a-fresh", size: 20_000, chunkSize: 1_000)  // the same bytes and validator
        h.mock.script(h.url("a"), attempts: [.drop(at: 8_000), .status(403)])
        try await startAndRetry(h)
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        #expect(refresher.asked == [.refused(statusCode: 403)])
        #expect(h.mock.requests(for: h.url("a-fresh")).map(\.offset) == [8_000], "continued, not started over")
        let names = h.recorder.names(of: "a")
        #expect(names.contains("needsFreshURL:refused (403)"))
        #expect(names.contains("urlChanged:mock://files/a-fresh"))
        #expect(names.contains("onHold:refreshingURL"))
        #expect(!names.contains("restarted") && !names.contains("failed"))
        #expect(await h.downloader.info(of: "a")?.url == h.url("a-fresh"))
        await h.cleanUp()
    }

    @Test("a fresh URL of another origin gets no secret header field (they were given for the first URL's origin)")
    func secretsStayWithTheirOrigin() async throws {
        let elsewhere = URL(string: "mock://cdn/a")!
        let refresher = Refresher([elsewhere])
        let h = Harness(delegate: refresher)
        let content = h.serve("a", size: 20_000, chunkSize: 1_000)
        h.mock.serve(elsewhere, MockResource(content, chunkSize: 1_000))  // the same bytes and validator
        h.mock.script(h.url("a"), attempts: [.drop(at: 8_000), .status(403)])
        let headers = [HeaderField(name: "Authorization", value: "Bearer t"), HeaderField(name: "X-Plain", value: "p")]
        try await h.downloader.start(id: "a", url: h.url("a"), options: DownloadOptions(transfer: TransferOptions(headers: headers)))
        _ = await h.recorder.interruption(of: "a")
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        #expect(h.mock.requests(for: h.url("a")).allSatisfy { $0.headers.map(\.name) == ["Authorization", "X-Plain"] })
        #expect(h.mock.requests(for: elsewhere).map { $0.headers.map(\.name) } == [["X-Plain"]])
        await h.cleanUp()
    }

    @Test("a fresh URL serving another file starts from zero, never splicing; the result is the new file")
    func differentFileRestarts() async throws {
        let refresher = Refresher([URL(string: "mock://files/other")!])
        let h = Harness(delegate: refresher)
        h.serve("a", size: 20_000, chunkSize: 1_000)
        let other = h.serve("other", size: 15_000, seed: 9, chunkSize: 1_000)
        h.mock.script(h.url("a"), attempts: [.drop(at: 8_000), .status(410)])
        try await startAndRetry(h)
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == other.data)
        #expect(h.recorder.names(of: "a").contains("restarted:validatorChanged"))
        #expect(refresher.asked == [.refused(statusCode: 410)])
        await h.cleanUp()
    }

    @Test("without a fresh URL (no delegate answer) the refusal fails the download as before, after the event")
    func noAnswerFails() async throws {
        let h = Harness()
        h.serve("a", size: 20_000, chunkSize: 1_000)
        h.mock.script(h.url("a"), attempts: [.drop(at: 8_000), .status(403)])
        try await startAndRetry(h)
        let failure = await h.recorder.failure(of: "a")
        #expect(failure.error.statusCode == 403)
        #expect(failure.resumeData?.bytesOnDisk == 8_000)
        #expect(h.recorder.names(of: "a").contains("needsFreshURL:refused (403)"))
        await h.cleanUp()
    }

    @Test("a refusal before the download began (no bytes, no validator) asks nothing and fails as before")
    func refusalAtStartFails() async throws {
        let refresher = Refresher([URL(string: "mock://files/a")!])
        let h = Harness(delegate: refresher)
        h.serve("a", size: 20_000)
        h.mock.script(h.url("a"), attempts: [.status(403)])
        try await h.downloader.start(id: "a", url: h.url("a"))
        let failure = await h.recorder.failure(of: "a")
        #expect(failure.error.statusCode == 403)
        #expect(refresher.asked.isEmpty)
        await h.cleanUp()
    }

    @Test("fresh URLs refused again and again: asked three times without a byte gained, then the download fails")
    func refusalLoopIsBounded() async throws {
        let fresh = (1...5).map { URL(string: "mock://files/fresh\($0)")! }
        let refresher = Refresher(fresh)
        let h = Harness(delegate: refresher)
        h.serve("a", size: 20_000, chunkSize: 1_000)
        h.mock.script(h.url("a"), attempts: [.drop(at: 8_000), .status(403)])
        for n in 1...5 {
            h.serve("fresh\(n)", size: 20_000, chunkSize: 1_000)
            h.mock.script(h.url("fresh\(n)"), attempts: [.status(403)])
        }
        try await startAndRetry(h)
        let failure = await h.recorder.failure(of: "a")
        #expect(failure.error.statusCode == 403)
        #expect(refresher.asked.count == 3)
        await h.cleanUp()
    }

    @Test("an expiry time: asked shortly before on the downloader's clock, while the download runs; it continues at the fresh URL from its bytes, no retry used")
    func expiryTime() async throws {
        let refresher = Refresher([URL(string: "mock://files/a-fresh")!])
        let h = Harness(delegate: refresher)
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        h.serve("a-fresh", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 3_000)])
        let options = DownloadOptions(transfer: TransferOptions(requestTimeout: .seconds(1000)),
                                      urlExpiresAt: Date().addingTimeInterval(60))
        try await h.downloader.start(id: "a", url: h.url("a"), options: options)
        await h.parked(2)
        await h.downloader.refresh()
        // 60 s of life: asked 15 s before (a quarter of it, shorter than the 30 s lead).
        h.clock.advance(by: .seconds(44))
        await h.downloader.refresh()
        #expect(refresher.asked.isEmpty)
        #expect(await h.downloader.state(of: "a") == .downloading)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        _ = await h.recorder.first { if case .urlChanged("a", _) = $0 { true } else { false } }
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .completed)
        #expect(refresher.asked == [.expiresSoon])
        #expect(h.contents(h.file("a")) == content.data)
        #expect(h.mock.requests(for: h.url("a-fresh")).map(\.offset) == [3_000])
        #expect(h.recorder.names(of: "a").contains("needsFreshURL:expires soon"))
        #expect(!h.recorder.names(of: "a").contains("failed"))
        await h.cleanUp()
    }

    @Test("an expiry time without a fresh URL: asked once, the download goes on with its URL")
    func expiryWithoutAnswer() async throws {
        let refresher = Refresher([])
        let h = Harness(delegate: refresher)
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 3_000)])
        let options = DownloadOptions(transfer: TransferOptions(requestTimeout: .seconds(1000)),
                                      urlExpiresAt: Date().addingTimeInterval(8))
        try await h.downloader.start(id: "a", url: h.url("a"), options: options)
        await h.parked(2)
        for _ in 0..<10 {
            h.clock.advance(by: .seconds(1))
            await h.downloader.refresh()
        }
        _ = await h.recorder.first { if case .needsFreshURL("a", .expiresSoon) = $0 { true } else { false } }
        try await poll("the delegate was asked") { !refresher.asked.isEmpty }
        #expect(refresher.asked == [.expiresSoon])
        #expect(await h.downloader.state(of: "a") == .downloading)
        try await h.downloader.pause("a")
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }

    @Test("updateURL re-points a paused download (used when resumed), a running one (continues at once), and refuses finished or unknown ids")
    func updateURL() async throws {
        let h = Harness()
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        h.serve("b", size: 10_000, chunkSize: 500)
        h.serve("c", size: 10_000, chunkSize: 500)
        h.mock.script(h.url("a"), attempts: [.stall(at: 2_000)])
        try await h.downloader.start(id: "a", url: h.url("a"),
                                     options: DownloadOptions(transfer: TransferOptions(requestTimeout: .seconds(1000))))
        await h.parked(2)
        // Running: stops and continues at "b" from its bytes, no retry used.
        h.mock.script(h.url("b"), attempts: [.stall(at: 4_000)])
        try await h.downloader.updateURL(id: "a", to: h.url("b"))
        try await poll("an attempt at the new URL") { !h.mock.requests(for: h.url("b")).isEmpty }
        #expect(h.mock.requests(for: h.url("b")).map(\.offset) == [2_000])
        await h.parked(2)
        #expect(!h.recorder.names(of: "a").contains("interrupted"), "no retry used")
        // Paused: the state stays; the resume goes to "c".
        _ = try await h.downloader.pause("a")
        try await h.downloader.updateURL(id: "a", to: h.url("c"))
        #expect(await h.downloader.state(of: "a") == .paused)
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        #expect(h.mock.requests(for: h.url("c")).map(\.offset) == [4_000])
        #expect(h.contents(h.file("a")) == content.data)
        #expect(h.recorder.names(of: "a").filter { $0.hasPrefix("urlChanged") }.count == 2)
        await expectError(.invalidState) { try await h.downloader.updateURL(id: "a", to: h.url("b")) }
        await expectError(.unknownIdentifier) { try await h.downloader.updateURL(id: "nope", to: h.url("b")) }
        await expectError(.unsupportedScheme) { try await h.downloader.updateURL(id: "a", to: URL(string: "gopher://x/y")!) }
        await h.cleanUp()
    }

    @Test("an absurd expiry time (a damaged record, far past Date.distantFuture) means not soon: no trap, no question")
    func absurdExpiry() async throws {
        let refresher = Refresher([])
        let h = Harness(delegate: refresher)
        let content = h.serve("a", size: 10_000, chunkSize: 500)
        let options = DownloadOptions(urlExpiresAt: Date(timeIntervalSinceReferenceDate: 1e300))
        try await h.downloader.start(id: "a", url: h.url("a"), options: options)
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        #expect(refresher.asked.isEmpty)
        await h.cleanUp()
    }

    /// Never answers until released; `answered` sees the late answer leave.
    final class Silent: DownloaderDelegate {
        let gate = Gate()
        let answered = Gate()
        func freshURL(forID id: String, current: URL, reason: URLRefreshReason) async -> URL? {
            await gate.park()
            defer { answered.arrive() }
            return URL(string: "mock://files/late")
        }
    }

    @Test("a delegate that never answers: after freshURLTimeout the download goes on as with a nil answer; a late answer is ignored")
    func freshURLTimeout() async throws {
        let silent = Silent()
        let h = Harness(delegate: silent, configure: { $0.freshURLTimeout = .seconds(60) })
        h.serve("a", size: 20_000, chunkSize: 1_000)
        h.serve("late", size: 20_000, chunkSize: 1_000)
        h.mock.script(h.url("a"), attempts: [.drop(at: 8_000), .status(403)])
        try await startAndRetry(h)
        _ = await h.recorder.first { if case .onHold("a", .refreshingURL) = $0 { true } else { false } }
        await silent.gate.waitForArrival()
        h.clock.advance(by: .seconds(59))
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .interrupted)
        h.clock.advance(by: .seconds(1))
        await h.downloader.refresh()
        await h.recorder.state("a", .failed)
        let info = try #require(await h.downloader.info(of: "a"))
        #expect(info.lastError?.contains("no fresh URL came within") == true, "\(info)")
        silent.gate.release()  // the late answer changes nothing
        await silent.answered.waitForArrival()
        await h.downloader.refresh()
        #expect(await h.downloader.state(of: "a") == .failed)
        #expect(await h.downloader.info(of: "a")?.url == h.url("a"), "the late answer re-pointed the download")
        #expect(h.mock.requests(for: h.url("late")).isEmpty)
        await h.cleanUp()
    }
}
