import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// Answers a lying (or misconfigured) server gives, through a real `Downloader` against the fault
/// server, and the honest answers of nginx they must not be confused with: none may end as a
/// wrong file reported complete, and none may leave its bytes in the staging file.
@Suite("HTTP server lies through Downloader")
struct HTTPServerLiesTests {
    /// Writes `text.txt` (300,000 bytes of numbered lines: gzip makes it far smaller, so an
    /// encoded body kept as file bytes would leave the file short, not long) and returns its SHA-256.
    private func writeText(_ fx: HTTPFixture) throws -> String {
        let lines = (0..<20_000).map { String(format: "line %09d\n", $0) }.joined()
        let data = Data(lines.utf8).prefix(HTTPFixture.smallSize)
        try data.write(to: fx.served.appendingPathComponent("text.txt"))
        return try fx.sha(of: "text.txt")
    }

    @Test("a gzip body that was not asked for is kept as sent, as curl and wget keep it")
    func gzipKeptAsSent() async throws {
        try await HTTPFixture.with { fx in
            let sha = try writeText(fx)
            let run = try await DownloadRun.run(fx, fx.fault.url("text.txt", "gzip=1"))
            let file = try #require(run.file, "\(String(describing: run.error))")
            let kept = try Data(contentsOf: file)
            #expect(kept.prefix(2) == Data([0x1f, 0x8b]), "the gzip bytes the server sent")
            #expect(kept.count < HTTPFixture.smallSize)
            // Decoded, they are the served file: nothing was lost or decoded on the way.
            let decoded = fx.directory.file("decoded.txt")
            let gunzip = try await ChildProcess.run(["/bin/sh", "-c", "gzip -dc < \"$0\" > \"$1\"", file.path, decoded.path])
            #expect(gunzip.status == 0, "\(gunzip.stderr)")
            #expect(try TestFiles.sha256(decoded) == sha)
        }
    }

    @Test("a resume answered with a 206 in another coding than the bytes on disk restarts from zero, never splices")
    func gzipRangeRestarts() async throws {
        try await HTTPFixture.with { fx in
            let sha = try writeText(fx)
            // Request 0 sends identity bytes and breaks at 100,000; request 1 (the resume) answers the
            // range gzip-encoded; request 2 (the restart) in identity again.
            let url = fx.fault.url("text.txt", "drop=100000&gzip=0,1")
            let run = try await DownloadRun.run(fx, url)
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.restarts == [.validatorChanged], "\(run.restarts)")
            #expect(try fx.fault.stats().ranges == ["bytes=100000-"], "one range only, then the whole file")
        }
    }

    /// A lie about the resource on a resume and the restart it must cause.
    struct Lie: Sendable, CustomTestStringConvertible {
        var query: String
        var restart: RestartReason
        var testDescription: String { query }
    }

    static let lies: [Lie] = [
        // 416 whose total is the offset although 300,000 bytes were known: today a 150,000-byte
        // file is reported complete.
        Lie(query: "drop=150000&lie416=0,1", restart: .rangeMismatch),
        // 206 of a resource of another length.
        Lie(query: "drop=150000&total=,400000", restart: .validatorChanged),
        // 206 without the ETag the first answer had (Last-Modified is still sent).
        Lie(query: "drop=150000&noEtag=0,1", restart: .validatorChanged),
    ]

    @Test("a resume answered with another total or without the known ETag restarts and ends byte-exact", arguments: lies)
    func resumeLies(lie: Lie) async throws {
        try await HTTPFixture.with { fx in
            let run = try await DownloadRun.run(fx, fx.fault.url("small.bin", lie.query))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == fx.smallSHA)
            #expect(run.restarts == [lie.restart])
        }
    }

    @Test("nginx: a resume of a complete staging file is a 416 without validators, taken as complete without a restart")
    func nginxComplete() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let url = fx.nginx!.fileURL("small.bin")
            let validator = try await fx.attempt(try HTTPTransport(configuration: .init(proxy: .none)), url, into: fx.staging()).head?.validator
            for onDisk in [HTTPFixture.smallSize, 100_000] {
                let destination = fx.directory.file("nginx-\(onDisk).bin")
                try Data(contentsOf: fx.served.appendingPathComponent("small.bin")).prefix(onDisk)
                    .write(to: URL(fileURLWithPath: destination.path + ".part"))
                let resume = ResumeData(id: "e2e", url: url, destination: destination, partPath: destination.path + ".part",
                                        bytesOnDisk: Int64(onDisk), validator: validator,
                                        expectedLength: Int64(HTTPFixture.smallSize), options: DownloadOptions())
                let run = try await DownloadRun.run(fx, url, resumeData: resume)
                let file = try #require(run.file, "\(String(describing: run.error))")
                #expect(try TestFiles.sha256(file) == fx.smallSHA)
                #expect(run.restarts.isEmpty)
                #expect(run.interruptions == 0)
            }
        }
    }
}
