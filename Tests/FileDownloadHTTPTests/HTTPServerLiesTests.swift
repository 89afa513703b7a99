import FileDownload
import FileDownloadHTTP
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

    private func partPath(_ run: DownloadRun) -> String { run.destination.path + ".part" }

    @Test("a gzip body is refused before its first byte: the staging file keeps only identity bytes, and a later run completes byte-exact",
          arguments: ["gzip=1", "drop=100000&gzip=0,1"])
    func gzipRefused(query: String) async throws {
        try await HTTPFixture.with { fx in
            let sha = try writeText(fx)
            let url = fx.fault.url("text.txt", query)
            let first = try await DownloadRun.run(fx, url)
            #expect(first.file == nil, "an encoded body must not end as the file")
            let error = try #require(first.error)
            #expect(error.code == .protocolViolation)
            #expect(!error.isRetryable)
            #expect(error.message.contains("gzip"), "\(error.message)")
            #expect(first.destinationUntouched)
            // The staging file holds the identity bytes before the refused answer, nothing else.
            let kept = (try? Data(contentsOf: URL(fileURLWithPath: partPath(first)))) ?? Data()
            let served = try Data(contentsOf: fx.served.appendingPathComponent("text.txt"))
            #expect(kept == served.prefix(kept.count))
            #expect(kept.count == (query.hasPrefix("drop") ? 100_000 : 0))

            // The next request of the same URL answers in identity: a later run completes.
            let later = try await DownloadRun.run(fx, url, resumeData: first.resumeData ?? ResumeData(
                id: "e2e", url: url, destination: first.destination, partPath: partPath(first), bytesOnDisk: 0,
                validator: nil, expectedLength: nil, options: DownloadOptions()))
            let file = try #require(later.file, "\(String(describing: later.error))")
            #expect(try TestFiles.sha256(file) == sha)
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
            let url = fx.nginx!.url("small.bin")
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
