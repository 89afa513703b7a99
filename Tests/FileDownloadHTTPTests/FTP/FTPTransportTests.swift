import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// `FTPTransport` against vsftpd started by the tests: downloads, resume with `REST`, the size and
/// `MDTM` validator, logins.
@Suite("FTP transport against vsftpd", .timeLimit(.minutes(2)))
struct FTPTransportTests {
    @Test("a download through the Downloader is byte-exact, anonymous and passive")
    func plainDownload() async throws {
        try await FTPFixture.with { fixture in
            let content = try fixture.serve("data.bin", size: 3 * 1024 * 1024 + 7, seed: 1)
            let run = try await fixture.download(fixture.server.url("data.bin"), transport: try FTPTransport())
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try Data(contentsOf: file) == content)
            let commands = fixture.server.commands
            #expect(commands.contains("USER anonymous"))
            #expect(commands.contains("EPSV") || commands.contains("PASV"))
            #expect(!commands.contains { $0.hasPrefix("REST") })
        }
    }

    @Test("active mode on request: the server connects back (EPRT or PORT)")
    func activeMode() async throws {
        try await FTPFixture.with { fixture in
            let content = try fixture.serve("active.bin", size: 200_000, seed: 2)
            let transport = try FTPTransport(configuration: .init(usesActiveMode: true))
            let staging = fixture.directory.file("active.part")
            let sink = try await fixture.attempt(transport, fixture.server.url("active.bin"), into: staging)
            #expect(sink.head?.disposition == .resumed(at: 0))
            #expect(try Data(contentsOf: staging) == content)
            #expect(fixture.server.commands.contains { $0.hasPrefix("EPRT") || $0.hasPrefix("PORT") })
        }
    }

    @Test("an interrupted download resumes with REST from the bytes on disk under the size and MDTM validator")
    func resumeWithRest() async throws {
        try await FTPFixture.with { fixture in
            let content = try fixture.serve("resume.bin", size: 1_000_000, seed: 3)
            let transport = try FTPTransport()
            let url = fixture.server.url("resume.bin")
            // What the first attempt learned, and the bytes it kept when the connection broke.
            let first = try await fixture.attempt(transport, url, into: fixture.directory.file("probe.part"))
            let validator = try #require(first.head?.validator)
            #expect(validator == .sizeAndModificationTime(size: 1_000_000, mtime: 1_700_000_000))
            let staging = fixture.directory.file("resume.part")
            try content.prefix(400_000).write(to: staging)
            let sink = try await fixture.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .resumed(at: 400_000))
            #expect(sink.head?.expectedLength == 1_000_000)
            #expect(try Data(contentsOf: staging) == content)
            #expect(fixture.server.commands.contains("REST 400000"))
        }
    }

    @Test("a file changed between attempts restarts from zero, never spliced, even at the same size")
    func changedFileRestarts() async throws {
        try await FTPFixture.with { fixture in
            let old = try fixture.serve("change.bin", size: 500_000, seed: 4)
            let transport = try FTPTransport()
            let url = fixture.server.url("change.bin")
            let validator = try #require(try await fixture.attempt(transport, url, into: fixture.directory.file("probe.part")).head?.validator)
            let new = try fixture.serve("change.bin", size: 500_000, seed: 5, modified: Date(timeIntervalSince1970: 1_700_000_100))
            #expect(new != old)
            let staging = fixture.directory.file("change.part")
            try old.prefix(200_000).write(to: staging)
            let sink = try await fixture.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .restarted(.validatorChanged))
            #expect(sink.head?.validator == .sizeAndModificationTime(size: 500_000, mtime: 1_700_000_100))
            #expect(try Data(contentsOf: staging) == new)
            // REST was asked and accepted, then the exchange stopped before RETR; the restart reads from zero.
            let commands = fixture.server.commands
            let rest = try #require(commands.firstIndex(of: "REST 200000"))
            #expect(commands[(rest + 1)...].first { $0.hasPrefix("REST") || $0.hasPrefix("RETR") } == "RETR change.bin")
            #expect(commands.filter { $0.hasPrefix("RETR") }.count == 2)  // the probe's and the restart's
        }
    }

    @Test("a file shorter than the bytes on disk restarts from zero")
    func shrunkFileRestarts() async throws {
        try await FTPFixture.with { fixture in
            let transport = try FTPTransport()
            let url = fixture.server.url("shrink.bin")
            let old = try fixture.serve("shrink.bin", size: 300_000, seed: 6)
            let validator = try #require(try await fixture.attempt(transport, url, into: fixture.directory.file("probe.part")).head?.validator)
            let new = try fixture.serve("shrink.bin", size: 100_000, seed: 7, modified: Date(timeIntervalSince1970: 1_700_000_200))
            let staging = fixture.directory.file("shrink.part")
            try old.prefix(200_000).write(to: staging)
            let sink = try await fixture.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .restarted(.validatorChanged))
            #expect(try Data(contentsOf: staging) == new)
        }
    }

    @Test("the bytes on disk already whole: complete, nothing read")
    func alreadyComplete() async throws {
        try await FTPFixture.with { fixture in
            let content = try fixture.serve("whole.bin", size: 100_000, seed: 8)
            let transport = try FTPTransport()
            let staging = fixture.directory.file("whole.part")
            try content.write(to: staging)
            let sink = try await fixture.attempt(transport, fixture.server.url("whole.bin"), into: staging,
                                                 validator: .sizeAndModificationTime(size: 100_000, mtime: 1_700_000_000))
            #expect(sink.head?.disposition == .complete)
            #expect(try Data(contentsOf: staging) == content)
        }
    }

    @Test("a range reads exactly its bytes; a range past the end is not satisfiable")
    func ranges() async throws {
        try await FTPFixture.with { fixture in
            let content = try fixture.serve("range.bin", size: 300_000, seed: 9)
            let transport = try FTPTransport()
            let url = fixture.server.url("range.bin")
            let validator = Validator.sizeAndModificationTime(size: 300_000, mtime: 1_700_000_000)
            let staging = fixture.directory.file("range.part")
            try content.prefix(100_000).write(to: staging)
            let sink = try await fixture.attempt(transport, url, into: staging, validator: validator, end: 150_000)
            #expect(sink.head?.disposition == .resumed(at: 100_000))
            #expect(try Data(contentsOf: staging) == content.prefix(150_000))
            let past = fixture.directory.file("past.part")
            try content.write(to: past)
            await #expect { try await fixture.attempt(transport, url, into: past, validator: validator, end: 400_000) } throws: {
                ($0 as? DownloadError)?.code == .rangeNotSatisfiable
            }
        }
    }

    @Test("a missing file fails notFound, not retried")
    func missingFile() async throws {
        try await FTPFixture.with { fixture in
            let run = try await fixture.download(fixture.server.url("nowhere.bin"), transport: try FTPTransport())
            let error = try #require(run.error)
            #expect(error.code == .notFound)
            #expect(!error.isRetryable)
        }
    }

    @Test("a refused login fails authenticationFailed, not retried, naming the user and the server's reply")
    func badCredentials() async throws {
        try await FTPFixture.with { fixture in
            var url = URLComponents(url: fixture.server.url("data.bin"), resolvingAgainstBaseURL: false)!
            url.user = "alice"
            url.password = "wrong-secret"
            let run = try await fixture.download(url.url!, transport: try FTPTransport())
            let error = try #require(run.error)
            #expect(error.code == .authenticationFailed)
            #expect(!error.isRetryable)
            #expect(error.message.contains("refused the login of alice"), "\(error.message)")
            #expect(error.message.contains("530"), "\(error.message)")
            #expect(!error.message.contains("wrong-secret"))
            #expect(!run.events.contains { if case .interrupted = $0 { true } else { false } })
        }
    }

    @Test("the auth door is asked for the login and its password is used")
    func loginThroughTheDoor() async throws {
        try await FTPFixture.with { fixture in
            let content = try fixture.serve("door.bin", size: 10_000, seed: 10)
            let asked = Counter()
            let staging = fixture.directory.file("door.part")
            _ = try await fixture.attempt(try FTPTransport(), fixture.server.url("door.bin"), into: staging) { challenge in
                asked.increment()
                guard case .password(let user) = challenge.kind, user == "anonymous" else { return .reject }
                return .useCredential(.password(user: "ftp", password: "tester@example.org"))
            }
            #expect(asked.value == 1)
            #expect(try Data(contentsOf: staging) == content)
            #expect(fixture.server.commands.contains("USER ftp"))
        }
    }
}
