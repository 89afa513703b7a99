import FileDownload
import FileDownloadHTTP
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// `HTTPTransport` honours `TransferSink.pacingDelay` (the downloader's overall limit) by pausing
/// the libcurl transfer on its I/O thread, on a limiter whose clock the test moves.
@Suite("HTTPTransport paces by the sink's shared limiter", .timeLimit(.minutes(1)))
struct HTTPPacingTests {
    @Test("after a write that put the limiter in debt the transfer holds; it goes on when its wait is over and finishes byte-exact when the limit is lifted")
    func pausesAndResumes() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let size = 8 << 20
            let sha = try TestFiles.write(fx.served.appendingPathComponent("paced.bin"), size: size, seed: 9)
            let clock = ManualClock()
            let limiter = BandwidthLimiter(bytesPerSecond: 1_000_000, burst: .zero, clock: clock)
            let staging = try fx.staging()
            let sink = try TransferSink(path: staging.path, requestedOffset: 0, pacing: limiter)
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let request = TransferRequest(downloadID: "paced", url: fx.nginx!.fileURL("paced.bin"))
            let transfer = Task { try await transport.transfer(request, into: sink) }

            try await poll("a body byte arrived") { sink.fileLength > 0 }
            let first = sink.fileLength
            #expect(first < Int64(size))
            // The clock stands still: the transfer pauses again each time it asks.
            try await Task.sleep(for: .milliseconds(300))
            #expect(sink.fileLength == first, "the transfer went on from \(first) to \(sink.fileLength) bytes while it owed the limiter")

            clock.advance(by: .seconds(3600))  // the wait is over: one more write, then it owes again
            try await poll("the transfer went on once its wait was over") { sink.fileLength > first }
            limiter.bytesPerSecond = nil  // lifted: taken up within 100 ms, the rest comes at once
            try await transfer.value
            sink.seal()
            #expect(sink.fileLength == Int64(size))
            #expect(try TestFiles.sha256(staging) == sha)
            await transport.shutdown()
        }
    }
}
