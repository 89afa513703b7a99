import FileDownload
import FileDownloadHTTP
import Foundation
import Testing

/// Pause, resume and cancel of a running HTTP download through the `Downloader`.
@Suite("HTTP pause, resume and cancel through Downloader")
struct HTTPPauseResumeTests {
    /// Starts a download of a resource that stalls after 100,000 bytes on its first request, and
    /// calls `act` once those bytes are reported; returns the events until completion or failure.
    private func stalled(_ fx: HTTPFixture, act: @escaping @Sendable (Downloader) async throws -> Void)
        async throws -> (events: [DownloadEvent], destination: URL) {
        let transport = try HTTPTransport(configuration: .init(proxy: .none))
        var transports = TransportRegistry()
        transports.register(transport, for: "http")
        let downloader = Downloader(
            configuration: DownloaderConfiguration(progressInterval: .milliseconds(20), downloadsDirectory: fx.directory.url),
            transports: transports)
        let destination = fx.directory.file("paused-\(UUID().uuidString.prefix(8)).bin")
        try DownloadRun.sentinel.write(to: destination)
        let events = downloader.events()
        try await downloader.start(id: "p", url: fx.fault.url("small.bin", "stall=100000"), destination: destination)
        let log = try await downloader.eventsActingOnce(events, after: 100_000, limit: .seconds(30), act: act)
        await downloader.shutdown()
        return (log, destination)
    }

    @Test("a paused download resumes at its offset with a range and completes byte-exact")
    func pauseThenResume() async throws {
        try await HTTPFixture.with { fx in
            let (events, destination) = try await stalled(fx) { downloader in
                _ = try await downloader.pause("p")
                try await downloader.resume("p")
            }
            #expect(events.contains { if case .paused = $0 { true } else { false } })
            #expect(events.contains { if case .completed = $0 { true } else { false } })
            #expect(!events.contains { if case .restarted = $0 { true } else { false } })
            // Resumed, not started again: no progress after the pause counts from below the offset.
            let paused = try #require(events.firstIndex { if case .paused = $0 { true } else { false } })
            let after = events[paused...].compactMap { if case .progress(_, let p) = $0 { p.receivedBytes } else { nil } }
            #expect(!after.isEmpty)
            #expect(after.allSatisfy { $0 >= 100_000 })
            #expect(try fx.fault.stats().ranges == ["bytes=100000-"])
            #expect(try TestFiles.sha256(destination) == fx.smallSHA)
        }
    }

    @Test("a cancelled download leaves the destination untouched and no staging file")
    func cancel() async throws {
        try await HTTPFixture.with { fx in
            let (events, destination) = try await stalled(fx) { downloader in
                try await downloader.cancel("p")
            }
            #expect(events.contains { if case .cancelled = $0 { true } else { false } })
            #expect((try? Data(contentsOf: destination)) == DownloadRun.sentinel)
            #expect(!FileManager.default.fileExists(atPath: destination.path + ".part"))
        }
    }
}
