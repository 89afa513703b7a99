import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// One file over several connections through a real `Downloader` and `HTTPTransport`, against
/// nginx on 127.0.0.1.
@Suite("HTTP segmented downloads against nginx", .timeLimit(.minutes(5)))
struct HTTPSegmentTests {
    static let size = 64 << 20

    @Test("a 64 MiB file over 4 connections is byte-exact, and nginx answered ranged requests")
    func segmented() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let sha = try TestFiles.write(fx.served.appendingPathComponent("big.bin"), size: Self.size, seed: 64)
            let run = try await DownloadRun.run(fx, fx.nginx!.url("big.bin"), sha256: sha, maxConnections: 4, limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(TestFiles.size(file) == Int64(Self.size))
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.restarts.isEmpty && run.interruptions == 0)
            let log = try fx.nginx!.accessLog().filter { $0.hasPrefix("/big.bin ") }
            let ranged = log.filter { $0.hasPrefix("/big.bin 206 ") && $0.contains("\"bytes=") }
            #expect(ranged.count >= 3, "\(log)")
            // Every byte at least once; a connection cut at a lowered end (work stealing) wastes
            // what nginx had already put into the loopback socket's buffers (megabytes each).
            let sent = NginxAccessLog.bodyBytes(log)
            print("segmented 64 MiB over nginx: \(log.count) responses, \(sent) body bytes sent")
            #expect(sent >= Int64(Self.size) && sent < 2 * Int64(Self.size), "\(log)")
        }
    }

    @Test("a server that ignores ranges (/no-ranges/): one connection, byte-exact, no failure")
    func rangesIgnored() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let sha = try TestFiles.write(fx.served.appendingPathComponent("big.bin"), size: 24 << 20, seed: 65)
            let run = try await DownloadRun.run(fx, fx.nginx!.url("no-ranges/big.bin"), sha256: sha, maxConnections: 4,
                                                limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            let log = try fx.nginx!.accessLog().filter { $0.hasPrefix("/no-ranges/big.bin ") }
            #expect(run.restarts.isEmpty && run.interruptions == 0, "\(run.events.filter { "\($0)".contains("progress") == false }) \(log)")
            #expect(log.allSatisfy { $0.hasPrefix("/no-ranges/big.bin 200 ") }, "\(log)")
            // The first request, and at most one more for the whole file when the first connection
            // had finished its piece before the server was seen to ignore ranges.
            #expect((1...2).contains(log.filter { $0.hasSuffix("\"-\"") }.count), "\(log)")
        }
    }
}
