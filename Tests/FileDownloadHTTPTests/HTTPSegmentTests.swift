import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// One file over several connections through a real `Downloader` and `HTTPTransport`, against
/// nginx and the fault server on 127.0.0.1.
@Suite("HTTP segmented downloads against nginx and the fault server", .timeLimit(.minutes(5)))
struct HTTPSegmentTests {
    static let size = 64 << 20
    /// Above the default threshold (16 MiB): four pieces of 6 MiB on the fault server.
    static let faultSize = 24 << 20

    /// The targets of the requests the fault server saw for `url` (its query is unique to the
    /// test), in order of arrival.
    static func targets(_ fx: HTTPFixture, of url: URL) throws -> [String] {
        let query = url.query ?? ""
        return try fx.fault.requestTargets().filter { $0.hasSuffix(query) }
    }

    @Test("the file changes on the server while its segments run: the download restarts from zero and delivers the new version, never a splice")
    func changedMidway() async throws {
        try await HTTPFixture.with { fx in
            _ = try TestFiles.write(fx.served.appendingPathComponent("old.bin"), size: Self.faultSize, seed: 70)
            let newSHA = try TestFiles.write(fx.served.appendingPathComponent("new.bin"), size: Self.faultSize, seed: 71)
            // Request 0 (the first connection) gets the old version; every later one the new.
            let url = fx.fault.url("big.bin", "versions=old.bin,new.bin")
            let run = try await DownloadRun.run(fx, url, maxConnections: 4, limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == newSHA)
            #expect(run.restarts == [.validatorChanged], "\(run.restarts)")
            #expect(run.interruptions == 0)
            // The ranged requests after the first answered with the whole new file (If-Range did
            // not match), and the download started again with a request without a range.
            #expect(try Self.targets(fx, of: url).count >= 3)
        }
    }

    /// A fault on two extra connections, and how many ranged requests reach the file at least.
    struct ExtraConnectionFault: Sendable, CustomTestStringConvertible {
        let query: String
        let rangedAtLeast: Int
        let testDescription: String
    }

    static let extraConnectionFaults = [
        // Requests 1 and 2 are refused before their ranges are read; the three pieces after the
        // first come over ranged requests all the same: a 429 is not a server that ignores
        // ranges, which would leave one connection to fetch the rest.
        ExtraConnectionFault(query: "status=,429,429&retryAfter=1", rangedAtLeast: 3, testDescription: "429 with Retry-After"),
        // Requests 1 and 2 (ranges from 6 MiB on) are reset before any body byte: the two reset
        // ranges and the three pieces after the first, each a ranged request.
        ExtraConnectionFault(query: "reset=,0,0", rangedAtLeast: 5, testDescription: "connections reset"),
    ]

    @Test("429 or resets on two extra connections: the download goes on with the others, is not interrupted, and is byte-exact",
          arguments: extraConnectionFaults)
    func faultsOnExtraConnections(_ fault: ExtraConnectionFault) async throws {
        try await HTTPFixture.with { fx in
            let sha = try TestFiles.write(fx.served.appendingPathComponent("big.bin"), size: Self.faultSize, seed: 72)
            let url = fx.fault.url("big.bin", fault.query)
            let run = try await DownloadRun.run(fx, url, sha256: sha, maxConnections: 4, limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.interruptions == 0 && run.restarts.isEmpty)
            // Their ranges were fetched by later requests.
            #expect(try Self.targets(fx, of: url).count >= 5)
            let ranges = try fx.fault.stats().ranges
            #expect(ranges.count >= fault.rangedAtLeast, "\(ranges)")
        }
    }

    @Test("a 64 MiB file over 4 connections is byte-exact, and nginx answered ranged requests")
    func segmented() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let sha = try TestFiles.write(fx.served.appendingPathComponent("big.bin"), size: Self.size, seed: 64)
            let run = try await DownloadRun.run(fx, fx.nginx!.fileURL("big.bin"), sha256: sha, maxConnections: 4, limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(TestFiles.size(file) == Int64(Self.size))
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.restarts.isEmpty && run.interruptions == 0)
            let log = try fx.nginx!.transferLog().filter { $0.hasPrefix("/big.bin ") }
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
            let run = try await DownloadRun.run(fx, fx.nginx!.fileURL("no-ranges/big.bin"), sha256: sha, maxConnections: 4,
                                                limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            let log = try fx.nginx!.transferLog().filter { $0.hasPrefix("/no-ranges/big.bin ") }
            #expect(run.restarts.isEmpty && run.interruptions == 0, "\(run.events.filter { "\($0)".contains("progress") == false }) \(log)")
            #expect(log.allSatisfy { $0.hasPrefix("/no-ranges/big.bin 200 ") }, "\(log)")
            // The first request, and at most one more for the whole file when the first connection
            // had finished its piece before the server was seen to ignore ranges.
            #expect((1...2).contains(log.filter { $0.hasSuffix("\"-\"") }.count), "\(log)")
        }
    }
}
