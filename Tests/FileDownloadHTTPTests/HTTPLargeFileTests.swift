import FileDownload
import FileDownloadHTTP
import FileDownloadMock
import Foundation
import Testing

/// The 1 GiB file, dropped by the server at 20 random offsets, completes byte-exact.
@Suite("HTTP 1 GiB interrupted download")
struct HTTPLargeFileTests {
    @Test("1 GiB interrupted 20 times at seeded random offsets completes byte-exact")
    func interruptedGigabyte() async throws {
        try await HTTPFixture.with { fx in
            let size = 1 << 30
            let file = fx.served.appendingPathComponent("big.bin")
            let sha = try TestFiles.write(file, size: size, seed: 42)
            let seed = ProcessInfo.processInfo.environment["FDL_DROP_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
            // 20 distinct offsets in 1..<size from the seeded stream of MockContent.
            let words = MockContent.seeded(seed: seed, size: 8 * 64).data
            var offsets = Set<Int>()
            for i in 0..<64 where offsets.count < 20 {
                let word = words[(i * 8)..<(i * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                offsets.insert(1 + Int(word % UInt64(size - 1)))
            }
            let drops = offsets.sorted()
            print("1 GiB drop test: FDL_DROP_SEED=\(seed) offsets=\(drops)")
            let run = try await DownloadRun.run(
                fx, fx.fault.url("big.bin", "drop=\(drops.map(String.init).joined(separator: ","))"),
                sha256: sha,
                retry: RetryPolicy(maxRetries: 25, initialDelay: .milliseconds(10), maxDelay: .milliseconds(50), jitter: 0),
                maxConnections: 1,  // the resumes of one stream (segments have their own tests)
                limit: .seconds(300))
            let done = try #require(run.file, "seed \(seed): \(String(describing: run.error))")
            #expect(run.interruptions == 20, "seed \(seed)")
            #expect(run.restarts.isEmpty, "seed \(seed)")
            #expect(TestFiles.size(done) == Int64(size))
            #expect(try TestFiles.sha256(done) == sha, "seed \(seed)")
        }
    }
}
