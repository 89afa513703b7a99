import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// A server that mixes versions under one ETag, and servers that announce a digest, through a
/// real `Downloader` and `HTTPTransport` against the fault server on 127.0.0.1.
@Suite("HTTP: segments that disagree, and the server's digest", .timeLimit(.minutes(5)))
struct HTTPSegmentAgreementTests {
    /// Above the default threshold (16 MiB): four pieces of 6 MiB.
    static let size = HTTPSegmentTests.faultSize

    @Test("ranges from two versions under one ETag: the download restarts on one connection and is byte-exact")
    func twoVersionsOneETag() async throws {
        try await HTTPFixture.with { fx in
            _ = try TestFiles.write(fx.served.appendingPathComponent("big.bin"), size: Self.size, seed: 80)
            let newSHA = try TestFiles.write(fx.served.appendingPathComponent("new.bin"), size: Self.size, seed: 81)
            // Request 0 (the first connection) gets big.bin, every later one new.bin, all under
            // big.bin's ETag and date: If-Range matches, so each range is answered with a 206.
            let url = fx.fault.url("big.bin", "versions=big.bin,new.bin&sameEtag=1")
            let run = try await DownloadRun.run(fx, url, maxConnections: 4, limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == newSHA)
            #expect(run.restarts == [.segmentsDisagree], "\(run.restarts)")
            // After the restart, one request without a range fetched the whole file.
            let ranges = try fx.fault.stats().ranges
            let targets = try HTTPSegmentTests.targets(fx, of: url)
            #expect(targets.count == ranges.count + 2, "\(targets) \(ranges)")
        }
    }

    @Test("one range answered with zeros under the file's ETag: a restart on one connection, byte-exact")
    func zeroedRange() async throws {
        try await HTTPFixture.with { fx in
            let sha = try TestFiles.write(fx.served.appendingPathComponent("big.bin"), size: Self.size, seed: 82)
            try Data(count: Self.size).write(to: fx.served.appendingPathComponent("zeros.bin"))
            let url = fx.fault.url("big.bin", "versions=big.bin,big.bin,zeros.bin,big.bin&sameEtag=1")
            let run = try await DownloadRun.run(fx, url, maxConnections: 4, limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.restarts == [.segmentsDisagree], "\(run.restarts)")
        }
    }

    /// How the fault server announces the file's SHA-256.
    struct Announcement: Sendable, CustomTestStringConvertible {
        let query: String
        let testDescription: String
    }

    static let announcements = [
        Announcement(query: "digest=repr", testDescription: "Repr-Digest"),
        Announcement(query: "digest=content", testDescription: "Content-Digest on a 200"),
        Announcement(query: "digest=legacy", testDescription: "Digest: SHA-256= (RFC 3230)"),
    ]

    @Test("a digest the server announces is checked: the file is verified by the server's digest", arguments: announcements)
    func announcedDigest(_ announcement: Announcement) async throws {
        try await HTTPFixture.with { fx in
            let sha = try TestFiles.write(fx.served.appendingPathComponent("small.bin"), size: 1 << 20, seed: 83)
            let run = try await DownloadRun.run(fx, fx.fault.url("small.bin", announcement.query))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.checks == [.announcedLength, .serverDigest], "\(String(describing: run.checks))")
        }
    }

    @Test("a Repr-Digest over segments: each range's 206 carries it, and the file is verified by it")
    func digestOverSegments() async throws {
        try await HTTPFixture.with { fx in
            let sha = try TestFiles.write(fx.served.appendingPathComponent("big.bin"), size: Self.size, seed: 84)
            let url = fx.fault.url("big.bin", "digest=repr")
            let run = try await DownloadRun.run(fx, url, maxConnections: 4, limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.checks?.contains(.serverDigest) == true && run.restarts.isEmpty)
            #expect(try fx.fault.stats().ranges.count >= 3)
        }
    }

    @Test("a wrong digest fails validation like a wrong sha256: no file at the destination")
    func wrongDigest() async throws {
        try await HTTPFixture.with { fx in
            _ = try TestFiles.write(fx.served.appendingPathComponent("small.bin"), size: 1 << 20, seed: 85)
            let run = try await DownloadRun.run(fx, fx.fault.url("small.bin", "digest=wrong"))
            #expect(run.file == nil)
            #expect(run.error?.code == .validationFailed, "\(String(describing: run.error))")
            #expect(run.destinationUntouched)
        }
    }
}
