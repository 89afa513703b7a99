@testable import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// A real process (`fdl-crash-helper`: Downloader + HTTPTransport + SQLiteDownloadStore) downloads
/// 20 files from a throttled nginx on 127.0.0.1 and is killed with SIGKILL at 25 random moments,
/// restarted each time; then it runs to the end.
@Suite("Crash recovery with a real process", .serialized)
struct CrashRecoveryTests {
    static let kills = 25
    static let concurrency = 4
    static let bytesPerSecond = 96 * 1024
    static let checkpointMilliseconds = 200

    @Test("after 25 SIGKILLs every file is complete and right, and little was fetched twice")
    func killedAndRestarted() async throws {
        let seed = ProcessInfo.processInfo.environment["FDL_CRASH_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1 ... .max)
        print("crash test seed \(seed) (rerun with FDL_CRASH_SEED=\(seed))")
        var random = SplitMix64(seed: seed)

        let work = try TemporaryDirectory()
        defer { work.remove() }
        var served = try ServedFiles(root: work.url.appending(path: "www"))
        for i in 0..<20 {
            try served.add(String(format: "f%02d.bin", i), size: Int.random(in: 200_000...600_000, using: &random),
                           using: &random)
        }
        let downloads = work.url.appending(path: "downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let server = try await NginxServer(root: served.root, bytesPerSecond: Self.bytesPerSecond)
        let storePath = work.path("downloads.sqlite")
        let arguments = ["--store", storePath, "--base", server.baseURL.absoluteString, "--dir", downloads.path,
                         "--concurrency", "\(Self.concurrency)",
                         "--checkpoint-ms", "\(Self.checkpointMilliseconds)"]
            + served.names.flatMap { ["--file", $0] }

        var moments: [Int] = []
        for run in 1...Self.kills {
            let delay = Int.random(in: 150...650, using: &random)
            moments.append(delay)
            // The helper kills itself at the random moment, timed by its own clock.
            let helper = try HelperProcess(arguments + ["--kill-after-ms", "\(delay)"],
                                           output: work.url.appending(path: "run\(run).log"))
            let status = try await helper.waitForExit(limit: .seconds(30))
            try #require(status == SIGKILL, """
                run \(run) ended with \(status) before its kill at \(delay) ms; the files are too small or \
                the rate too high for 25 kills. Output:\n\(helper.outputText)
                """)
        }
        print("killed after (ms): \(moments.map(String.init).joined(separator: " "))")

        let last = try HelperProcess(arguments, output: work.url.appending(path: "final.log"))
        let status = try await last.waitForExit(limit: .seconds(120))
        #expect(status == 0, "the final run failed:\n\(last.outputText)")
        let results = last.results
        #expect(results.count == 20, "\(last.outputText)")
        for name in served.names {
            #expect(results[name]?.state == "completed", "\(name): \(String(describing: results[name]))")
            #expect(ServedFiles.sha256(of: downloads.appending(path: name)) == served.files[name]?.sha256,
                    "\(name) has the wrong content")
            #expect(!FileManager.default.fileExists(atPath: downloads.appending(path: name + ".part").path))
        }

        let store = try await SQLiteDownloadStore(path: storePath)
        let records = try await store.loadAll()
        #expect(records.map(\.id).sorted() == served.names)
        #expect(records.allSatisfy { $0.state == .completed }, "\(records.map { "\($0.id)=\($0.state)" })")
        await store.close()

        server.stop()
        let sent = try server.bodyBytesSent()
        let refetched = sent - served.totalBytes
        // Each kill may cost each running download the bytes since its last checkpoint (plus what
        // was in flight), never more.
        let window = Int64(Self.bytesPerSecond * (Self.checkpointMilliseconds + 250) / 1000) + 64 * 1024
        let bound = Int64(Self.kills * Self.concurrency) * window
        print("crash test: \(served.totalBytes) bytes in 20 files, \(sent) sent by the server, \(refetched) fetched again (bound \(bound))")
        #expect(sent >= served.totalBytes)
        #expect(refetched <= bound, "\(refetched) bytes were fetched twice, more than the checkpoint windows allow (\(bound))")
    }
}
