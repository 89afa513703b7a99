@testable import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// A real process (`fdl-crash-helper`) downloads one file over 4 connections from a throttled
/// nginx, is killed with SIGKILL a few times during the segmented download and restarted each
/// time (restore from the SQLite store), then runs to the end.
@Suite("Crash recovery of a segmented download", .serialized)
struct SegmentCrashRecoveryTests {
    static let kills = 4
    static let connections = 4
    static let bytesPerSecond = 1 << 20  // per connection
    static let checkpointMilliseconds = 200
    /// Four kills at most 1.1 s into a run fetch at most about 18 MiB at 4 x 1 MiB/s: 32 MiB keeps
    /// every kill mid-download even when runs start slowly on a busy machine.
    static let size = 32 << 20

    @Test("SIGKILL during a segmented download and restore: byte-exact, re-fetch within one checkpoint window per segment")
    func killedDuringSegments() async throws {
        let seed = ProcessInfo.processInfo.environment["FDL_CRASH_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1 ... .max)
        print("segment crash test seed \(seed) (rerun with FDL_CRASH_SEED=\(seed))")
        var random = SplitMix64(seed: seed)
        let work = try TemporaryDirectory()
        defer { work.remove() }
        var served = try ServedFiles(root: work.url.appending(path: "www"))
        try served.add("big.bin", size: Self.size, using: &random)
        let downloads = work.url.appending(path: "downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let server = try await NginxServer(root: served.root, bytesPerSecond: Self.bytesPerSecond)
        let storePath = work.path("downloads.sqlite")
        let arguments = ["--store", storePath, "--base", server.baseURL.absoluteString, "--dir", downloads.path,
                         "--checkpoint-ms", "\(Self.checkpointMilliseconds)",
                         "--max-connections", "\(Self.connections)", "--segment-threshold", "\(1 << 20)",
                         // Pieces of 1 MiB (not the default 4 MiB): 32 MiB over 4 connections.
                         "--minimum-segment-size", "\(1 << 20)", "--file", "big.bin"]
        for run in 1...Self.kills {
            let delay = Int.random(in: 700...1100, using: &random)
            let helper = try HelperProcess(arguments + ["--kill-after-ms", "\(delay)"],
                                           output: work.url.appending(path: "run\(run).log"))
            let status = try await helper.waitForExit(limit: .seconds(30))
            try #require(status == SIGKILL, "run \(run) ended with \(status) before its kill at \(delay) ms:\n\(helper.outputText)")
        }
        // The store kept segments: the download continues from each one's bytes.
        let store = try await SQLiteDownloadStore(path: storePath)
        let kept = try #require(try await store.loadAll().first)
        await store.close()
        #expect(kept.segments.count >= 2, "\(kept.segments)")

        let last = try HelperProcess(arguments, output: work.url.appending(path: "final.log"))
        let status = try await last.waitForExit(limit: .seconds(120))
        #expect(status == 0, "the final run failed:\n\(last.outputText)")
        #expect(last.results["big.bin"]?.state == "completed", "\(last.outputText)")
        #expect(ServedFiles.sha256(of: downloads.appending(path: "big.bin")) == served.files["big.bin"]?.sha256)

        server.stop()
        let sent = try server.bodyBytesSent()
        let refetched = sent - served.totalBytes
        // Each kill may cost each running connection the bytes since its last checkpoint (plus
        // what was in flight); a connection cut at its segment's end may have had a chunk in flight.
        let window = Int64(Self.bytesPerSecond * (Self.checkpointMilliseconds + 250) / 1000) + 64 * 1024
        let bound = Int64(Self.kills * Self.connections) * window + Int64((Self.kills + 1) * Self.connections) * (256 << 10)
        print("segment crash test: \(served.totalBytes) bytes, \(sent) sent, \(refetched) fetched again (bound \(bound))")
        #expect(sent >= served.totalBytes)
        #expect(refetched <= bound, "\(refetched) bytes were fetched twice, more than one checkpoint window per segment allows (\(bound))")
    }
}
