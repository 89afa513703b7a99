import FileDownload
import FileDownloadHTTP
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

/// A download's rate budget shared by four connections to nginx: the limiter's own accounting on
/// a clock the test holds still, so nothing depends on how fast the machine is.
@Suite("HTTPTransport: four connections draw on one download's budget", .timeLimit(.minutes(1)))
struct HTTPRateBudgetTests {
    @Test("four ranges of one file: each connection's wait is the budget's debt after its bytes, the last one's the bytes of all four at the rate; lifted, the file is byte-exact")
    func fourConnectionsShareTheBudget() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let part: Int64 = 1 << 20
            let sha = try TestFiles.write(fx.served.appendingPathComponent("budget.bin"), size: Int(4 * part), seed: 28)
            let clock = ManualClock()
            let overall = BandwidthLimiter(bytesPerSecond: 1 << 40, burst: .zero, clock: clock)
            let rate: Int64 = 1_000_000
            let budget = BandwidthLimiter(bytesPerSecond: rate, burst: .zero, within: overall)
            let staging = try fx.staging()
            let handle = try FileHandle(forWritingTo: staging)
            try handle.truncate(atOffset: UInt64(4 * part))
            try handle.close()
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let sinks = try (0..<4).map { i in
                try TransferSink(segmentOf: staging.path, offset: Int64(i) * part, end: Int64(i + 1) * part, pacing: budget)
            }
            let transfers = (0..<4).map { i in
                Task {
                    let request = TransferRequest(downloadID: "budget", url: fx.nginx!.fileURL("budget.bin"),
                                                  offset: Int64(i) * part, end: Int64(i + 1) * part)
                    try await transport.transfer(request, into: sinks[i])
                }
            }
            // The clock stands still: after its first write each connection owes the budget and
            // pauses, so what the sinks hold is all the budget was given.
            try await poll("every connection wrote", limit: .seconds(30)) {
                sinks.enumerated().allSatisfy { i, sink in sink.fileLength > Int64(i) * part }
            }
            let written = sinks.enumerated().map { i, sink in sink.fileLength - Int64(i) * part }
            let waits = sinks.map(\.pacingDelay)
            // In the order they took from the budget, each wait pays back every byte taken so far.
            var taken: Int64 = 0
            for (wait, bytes) in zip(waits, written).sorted(by: { $0.0 < $1.0 }) {
                taken += bytes
                #expect(wait == .nanoseconds(Int64((Double(taken) * 1e9 / Double(rate)).rounded())),
                        "waits \(waits) for writes \(written)")
            }
            #expect(budget.delay == waits.max(), "the budget owes the bytes of all four connections")
            #expect(overall.delay < .milliseconds(1), "the overall limiter counted the same bytes at its own rate")

            // Both lifted (the clock stands still: a debt is never paid back): each connection
            // goes on within 100 ms.
            budget.bytesPerSecond = nil
            overall.bytesPerSecond = nil
            for transfer in transfers { try await transfer.value }
            for sink in sinks { sink.seal() }
            #expect(try TestFiles.sha256(staging) == sha)
            await transport.shutdown()
        }
    }
}
