import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// Downloads through a real `Downloader` and `HTTPTransport` from Apache httpd and lighttpd, which
/// answer differently from nginx: Apache serves a `.tar.gz` with `Content-Encoding: gzip`
/// (`AddEncoding gzip .gz`), and both answer a range past the end with a 416 without
/// `Content-Range` (docs/http.md, "Content codings" and "The last-byte check").
@Suite("HTTP against Apache httpd and lighttpd", .timeLimit(.minutes(5)))
struct HTTPApacheLighttpdTests {
    /// Above the default segment threshold (16 MiB): `-x 4` splits it.
    static let bigSize = 20 << 20

    /// Writes the served file `name` (`size` bytes from `seed`) dated a day back and returns its
    /// SHA-256. Apache makes the ETag of a file modified within the last second weak and does not
    /// take its Last-Modified date in `If-Range` (RFC 9110 calls such a date weak).
    private func serve(_ fx: HTTPFixture, _ name: String, size: Int, seed: UInt64) throws -> String {
        let file = fx.served.appendingPathComponent(name)
        let sha = try TestFiles.write(file, size: size, seed: seed)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: file.path)
        return sha
    }

    /// Apache's log lines for `name`.
    private func requests(_ apache: ApacheServer, _ name: String) throws -> [String] {
        try apache.accessLog().filter { $0.hasPrefix("/\(name) ") }
    }

    @Test("a .tar.gz that Apache sends with Content-Encoding: gzip is saved byte-exact, as sent")
    func encodedArchive() async throws {
        try await HTTPFixture.with(fault: false) { fx in
            let sha = try serve(fx, "a.tar.gz", size: HTTPFixture.smallSize, seed: 80)
            let apache = try await ApacheServer(root: fx.served)
            defer { apache.stop() }
            let run = try await DownloadRun.run(fx, apache.url("a.tar.gz"))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.restarts.isEmpty)
            #expect(try requests(apache, "a.tar.gz") == ["/a.tar.gz 200 \(HTTPFixture.smallSize) \"-\""])
        }
    }

    @Test("an encoded archive paused midway resumes with a range in the same coding and ends byte-exact")
    func encodedArchiveResumed() async throws {
        try await HTTPFixture.with(fault: false) { fx in
            let size = 1_000_000
            let sha = try serve(fx, "r.tar.gz", size: size, seed: 81)
            // About 10 s for the whole file: the pause (after 100,000 bytes) comes long before its
            // end on a busy machine too; the resume's range is not slowed down.
            let apache = try await ApacheServer(root: fx.served, kibibytesPerSecond: 100)
            defer { apache.stop() }
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            var transports = TransportRegistry()
            transports.register(transport, for: "http")
            let downloader = Downloader(
                configuration: DownloaderConfiguration(progressInterval: .milliseconds(20), downloadsDirectory: fx.directory.url),
                transports: transports)
            let destination = fx.directory.file("r.tar.gz")
            let events = downloader.events()
            try await downloader.start(id: "r", url: apache.url("r.tar.gz"), destination: destination)
            let pause = Mutex<Int64?>(nil)
            let log = try await downloader.eventsActingOnce(events, after: 100_000, limit: .seconds(120)) { downloader in
                let offset = try await downloader.pause("r")?.bytesOnDisk ?? 0
                pause.withLock { $0 = offset }
                try await downloader.resume("r")
            }
            let pausedAt = pause.withLock { $0 }
            await downloader.shutdown()
            #expect(log.contains { if case .completed = $0 { true } else { false } }, "\(log.suffix(3))")
            #expect(!log.contains { if case .restarted = $0 { true } else { false } }, "resumed, not started again")
            #expect(try TestFiles.sha256(destination) == sha)
            let offset = try #require(pausedAt)
            #expect(offset > 0 && offset < Int64(size))
            let lines = try requests(apache, "r.tar.gz")
            // Apache logs a request when it ends: the paused first one may come after the resume.
            #expect(lines.contains { $0.hasPrefix("/r.tar.gz 206 \(Int64(size) - offset) \"bytes=\(offset)-\"") }, "\(lines)")
        }
    }

    @Test("an encoded archive over four connections (-x 4) is byte-exact: every range in the coding of the first")
    func encodedArchiveSegmented() async throws {
        try await HTTPFixture.with(fault: false) { fx in
            let sha = try serve(fx, "big.tar.gz", size: Self.bigSize, seed: 82)
            let apache = try await ApacheServer(root: fx.served)
            defer { apache.stop() }
            let run = try await DownloadRun.run(fx, apache.url("big.tar.gz"), sha256: sha, maxConnections: 4,
                                                limit: .seconds(240))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.restarts.isEmpty)
            let lines = try requests(apache, "big.tar.gz")
            #expect(lines.filter { $0.contains(" 206 ") }.count >= 3, "ranges were asked for: \(lines)")
        }
    }

    /// The validator `server` reports for `url`, learned with one plain attempt.
    private func validator(_ fx: HTTPFixture, _ url: URL, _ transport: HTTPTransport) async throws -> Validator {
        try #require(try await fx.attempt(transport, url, into: fx.staging()).head?.validator)
    }

    /// Resumes a download whose staging file already holds all of `name` (interrupted after its
    /// last byte, before it was moved): it must complete without fetching the file again.
    private func completeStaging(_ fx: HTTPFixture, _ url: URL, _ name: String, size: Int) async throws -> DownloadRun {
        let transport = try HTTPTransport(configuration: .init(proxy: .none))
        let validator = try await validator(fx, url, transport)
        let destination = fx.directory.file("done-\(UUID().uuidString.prefix(8)).bin")
        let staging = destination.path + ".part"
        try Data(contentsOf: fx.served.appendingPathComponent(name)).prefix(size).write(to: URL(fileURLWithPath: staging))
        return try await DownloadRun.run(fx, url, resumeData: ResumeData(
            id: "e2e", url: url, destination: destination, partPath: staging, bytesOnDisk: Int64(size),
            validator: validator, expectedLength: Int64(size), options: DownloadOptions()))
    }

    @Test("Apache: a re-run whose staging file is complete asks for the last byte and completes without fetching again")
    func apacheCompleteStaging() async throws {
        try await HTTPFixture.with(fault: false) { fx in
            let sha = try serve(fx, "c.tar.gz", size: HTTPFixture.smallSize, seed: 83)
            let apache = try await ApacheServer(root: fx.served)
            defer { apache.stop() }
            let run = try await completeStaging(fx, apache.url("c.tar.gz"), "c.tar.gz", size: HTTPFixture.smallSize)
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == sha)
            #expect(run.restarts.isEmpty, "\(run.restarts)")
            let last = HTTPFixture.smallSize - 1
            #expect(try requests(apache, "c.tar.gz").last == "/c.tar.gz 206 1 \"bytes=\(last)-\"")
        }
    }

    @Test("lighttpd: a re-run whose staging file is complete completes without fetching again")
    func lighttpdCompleteStaging() async throws {
        try await HTTPFixture.with(fault: false) { fx in
            let lighttpd = try await LighttpdServer(root: fx.served)
            defer { lighttpd.stop() }
            let run = try await completeStaging(fx, lighttpd.url("small.bin"), "small.bin", size: HTTPFixture.smallSize)
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try TestFiles.sha256(file) == fx.smallSHA)
            #expect(run.restarts.isEmpty, "\(run.restarts)")
        }
    }

    @Test("RemoteFileCheck against Apache and lighttpd: unchanged, then changed after the file is replaced",
          arguments: ["apache", "lighttpd"])
    func remoteCheck(server: String) async throws {
        try await HTTPFixture.with(fault: false) { fx in
            let apache = server == "apache" ? try await ApacheServer(root: fx.served) : nil
            let lighttpd = server == "lighttpd" ? try await LighttpdServer(root: fx.served) : nil
            defer {
                apache?.stop()
                lighttpd?.stop()
            }
            _ = try serve(fx, "n.tar.gz", size: 50_000, seed: 84)
            let url = apache?.url("n.tar.gz") ?? lighttpd!.url("n.tar.gz")
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let validator = try await validator(fx, url, transport)
            #expect((validator.contentEncoding == "gzip") == (server == "apache"))
            let unchanged = try await RemoteFileCheck.check(url: url, length: 50_000, validator: validator,
                                                            transport: transport, scratchDirectory: fx.directory.url)
            #expect(unchanged == .unchanged)
            let file = fx.served.appendingPathComponent("n.tar.gz")
            // Another version, dated two days back: another ETag and Last-Modified.
            _ = try TestFiles.write(file, size: 50_000, seed: 85)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -172_800)], ofItemAtPath: file.path)
            let changed = try await RemoteFileCheck.check(url: url, length: 50_000, validator: validator,
                                                          transport: transport, scratchDirectory: fx.directory.url)
            guard case .changed(let head) = changed else {
                Issue.record("a replaced file must be changed, got \(changed)")
                return
            }
            #expect(head.statusCode == 200)
        }
    }
}
