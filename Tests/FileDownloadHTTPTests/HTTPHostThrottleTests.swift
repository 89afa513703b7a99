import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// The host governor against the fault server: a 429 with Retry-After holds the host for every
/// download to it, and the downloads complete byte-exact. (Which download goes first when the
/// hold ends is checked on the manual clock: HostCapTests.retryAfterHoldsTheHost.)
@Suite("HTTP: a throttling host through Downloader", .timeLimit(.minutes(2)))
struct HTTPHostThrottleTests {
    @Test("429 with Retry-After 1: the download waits it out and completes; another download to the host reaches it only after the held retry; both byte-exact")
    func tooManyRequests() async throws {
        try await HTTPFixture.with { fx in
            var transports = TransportRegistry()
            transports.register(try HTTPTransport(configuration: .init(proxy: .none)), for: "http")
            let downloader = Downloader(
                configuration: DownloaderConfiguration(
                    retryPolicy: RetryPolicy(maxRetries: 3, initialDelay: .milliseconds(20), maxDelay: .seconds(5), jitter: 0),
                    progressInterval: .milliseconds(50), downloadsDirectory: fx.directory.url, synchronizesFiles: false),
                transports: transports)
            let log = Mutex<[DownloadEvent]>([])
            downloader.observe { event in log.withLock { $0.append(event) } }
            let aURL = fx.fault.url("small.bin", "status=429&retryAfter=1")
            try await downloader.start(id: "a", url: aURL, destination: fx.directory.file("a.bin"))
            try await poll("a is interrupted by the 429", limit: .seconds(30)) {
                log.withLock { $0.contains { if case .interrupted("a", _, _) = $0 { true } else { false } } }
            }
            try await downloader.start(id: "b", url: fx.fault.url("small.bin"), destination: fx.directory.file("b.bin"))
            for id in ["a", "b"] {
                guard case .completed = try await downloader.outcome(of: id) else {
                    Issue.record("\(id) did not complete: \(String(describing: await downloader.info(of: id)))")
                    continue
                }
            }
            await downloader.shutdown()
            let events = log.withLock { $0 }
            let retryIn = events.compactMap { if case .interrupted("a", _, let delay) = $0 { delay } else { nil } }
            #expect(retryIn == [.seconds(1)])
            // b, started during the hold, reaches the server only after a's retry at the hold's end
            // (the retry goes first after a throttle: HostCapTests.retryAfterHoldsTheHost); a b
            // not held would have come between a's 429 and its retry.
            let order = try fx.fault.requestTargets().filter { $0.hasPrefix("/small.bin") }
                .map { aURL.absoluteString.hasSuffix($0) ? "a" : "b" }
            #expect(order.prefix(2) == ["a", "a"] && order.contains("b"), "b reached the host while it was held: \(order)")
            for name in ["a.bin", "b.bin"] {
                #expect(try TestFiles.sha256(fx.directory.file(name)) == fx.smallSHA)
            }
        }
    }
}
