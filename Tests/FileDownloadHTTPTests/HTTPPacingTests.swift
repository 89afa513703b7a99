import FileDownload
import FileDownloadHTTP
import FileDownloadMock
import Foundation
import Testing

/// `HTTPTransport` honours `TransferSink.pacingDelay` (the downloader's overall limit) by pausing
/// the libcurl transfer on its I/O thread, on a limiter whose clock the test moves.
@Suite("HTTPTransport paces by the sink's shared limiter", .timeLimit(.minutes(1)))
struct HTTPPacingTests {
    /// Polls `condition` every 5 ms for at most 10 s.
    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<2000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    @Test("while the limiter is in debt the transfer holds every body byte; once the clock moves it completes byte-exact")
    func pausesAndResumes() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let clock = ManualClock()
            let limiter = BandwidthLimiter(bytesPerSecond: 1_000_000, burst: .seconds(1), clock: clock)
            limiter.consume(1_100_000)  // 100 kB of debt: 0.1 s on the limiter's clock
            let staging = try fx.staging()
            let sink = try TransferSink(path: staging.path, requestedOffset: 0, pacing: limiter)
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let request = TransferRequest(downloadID: "paced", url: fx.nginx!.url("small.bin"))
            let transfer = Task { try await transport.transfer(request, into: sink) }

            #expect(await eventually { sink.head != nil }, "no head arrived")
            // The clock stands still: the transfer pauses again each time its delay is over.
            try await Task.sleep(for: .milliseconds(300))
            #expect(sink.fileLength == 0, "\(sink.fileLength) body bytes passed a limiter in debt")

            clock.advance(by: .seconds(2))  // the debt is paid and 1 MB is to spare
            try await transfer.value
            sink.seal()
            #expect(sink.fileLength == Int64(HTTPFixture.smallSize))
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }
}
