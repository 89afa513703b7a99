import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// A real server without `MDTM` (vsftpd with `cmds_denied=MDTM`): the validator is the weak
/// size alone; the transport used on its own resumes on it, a `Downloader` does not and logs a
/// notice that says so.
@Suite("FTP against a server without MDTM", .timeLimit(.minutes(2)))
struct FTPSizeOnlyServerTests {
    @Test("the transport alone: the validator is ftp-size (weak), and a request with it resumes with REST")
    func transportResumesOnSize() async throws {
        try await FTPFixture.with(deniedCommands: ["MDTM"]) { fixture in
            let content = try fixture.serve("s.bin", size: 600_000, seed: 20)
            let transport = try FTPTransport(configuration: .init(proxyVariables: [:]))
            let url = fixture.server.url("s.bin")
            let first = try await fixture.attempt(transport, url, into: fixture.directory.file("probe.part"))
            let validator = try #require(first.head?.validator)
            #expect(validator == .ftpSize(600_000))
            #expect(!validator.isStrong)
            let staging = fixture.directory.file("s.part")
            try content.prefix(250_000).write(to: staging)
            let sink = try await fixture.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .resumed(at: 250_000))
            #expect(try Data(contentsOf: staging) == content)
            #expect(fixture.server.commands.contains("REST 250000"))
        }
    }

    @Test("through a Downloader a paused download restarts from zero (no REST) and ends byte-exact")
    func downloaderRestarts() async throws {
        try await FTPFixture.with(deniedCommands: ["MDTM"]) { fixture in
            let content = try fixture.serve("d.bin", size: 2 * 1024 * 1024, seed: 21)
            var transports = TransportRegistry()
            transports.register(try FTPTransport(configuration: .init(proxyVariables: [:])), for: "ftp")
            let logs = LogCapture()
            var configuration = DownloaderConfiguration(
                retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(20), jitter: 0),
                progressInterval: .milliseconds(50), downloadsDirectory: fixture.directory.url)
            configuration.logger = logs.logger
            let downloader = Downloader(configuration: configuration, transports: transports, delegate: FirstAttemptPacing())
            let events = downloader.events()
            try await downloader.start(id: "d", url: fixture.server.url("d.bin"), destination: fixture.directory.file("d.bin"))
            let log = try await downloader.eventsActingOnce(events, after: 300 * 1024 + 1, limit: .seconds(60)) { downloader in
                #expect(try await downloader.pause("d") != nil)
                try await downloader.resume("d")
            }
            await downloader.shutdown()
            guard case .completed(_, let file)? = log.last else {
                Issue.record("did not complete: \(String(describing: log.last))")
                return
            }
            #expect(log.contains { if case .paused = $0 { true } else { false } })
            #expect(try Data(contentsOf: file) == content)
            let commands = fixture.server.commands
            #expect(commands.filter { $0.hasPrefix("RETR") }.count == 2, "\(commands)")
            #expect(!commands.contains { $0.hasPrefix("REST") }, "\(commands)")
            // The log says, with the download's id, that the validator is the weak size alone.
            let notices = logs.all.filter { $0.metadata["validator"] == "ftp-size" }
            #expect(notices.count == 2, "one per attempt: \(logs.all.map(\.message))")
            #expect(notices.allSatisfy { $0.metadata["id"] == "d" && $0.message.contains("weak validator") })
        }
    }

    @Test("a server that refuses SIZE (550) serves the file through RETR; a missing file is still notFound")
    func refusedSizeIsNotAMissingFile() async throws {
        try await FTPFixture.with(deniedCommands: ["SIZE"]) { fixture in
            let content = try fixture.serve("z.bin", size: 300_000, seed: 22)
            let run = try await fixture.download(fixture.server.url("z.bin"), transport: try FTPTransport(configuration: .init(proxyVariables: [:])))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try Data(contentsOf: file) == content)
            #expect(fixture.server.commands.contains("RETR z.bin"), "\(fixture.server.commands)")
            let missing = try await fixture.download(fixture.server.url("missing.bin"),
                                                     transport: try FTPTransport(configuration: .init(proxyVariables: [:])))
            #expect(missing.error?.code == .notFound, "\(String(describing: missing.error))")
        }
    }
}
