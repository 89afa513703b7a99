import FileDownload
import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Testing

/// End to end: `Downloader` + `SFTPTransport` + OpenSSH sshd. Files are compared by SHA-256; on
/// failure the destination keeps what it held before.
@Suite("Downloader over SFTP against sshd", .serialized, .timeLimit(.minutes(2)))
struct SFTPDownloaderTests {
    @Test("downloads a file; the destination holds exactly the remote bytes")
    func download() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(2 * 1024 * 1024 + 3, seed: 21)
        try server.serve("plain.bin", content)
        let harness = try DownloaderHarness(server)
        let destination = try await harness.start("plain", server.url("plain.bin"))
        guard let file = await harness.completedFile("plain") else { return }
        #expect(file == destination)
        #expect(try Fixtures.sha256(file: file) == Fixtures.sha256(content))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part"))
        await harness.finish()
    }

    @Test("pause then resume continues from the bytes on disk and ends byte-identical")
    func pauseResume() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(4 * 1024 * 1024, seed: 22)
        try server.serve("pause.bin", content)
        let harness = try DownloaderHarness(server, firstAttemptBytesPerSecond: 512 * 1024)
        try await harness.start("pause", server.url("pause.bin"))
        await harness.progressed("pause", beyond: 512 * 1024)
        let resumeData = try await harness.downloader.pause("pause")
        #expect(resumeData != nil)
        let partial = try #require(await harness.downloader.progress(of: "pause")).receivedBytes
        #expect(partial > 512 * 1024 && partial < Int64(content.count))
        try await harness.downloader.resume("pause")
        guard let file = await harness.completedFile("pause") else { return }
        #expect(try Fixtures.sha256(file: file) == Fixtures.sha256(content))
        #expect(!harness.events(of: "pause").contains { if case .restarted = $0 { true } else { false } })
        await harness.finish()
    }

    @Test("a connection killed mid-transfer interrupts the download, which resumes by itself")
    func interruptedThenResumed() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(4 * 1024 * 1024, seed: 23)
        try server.serve("kill.bin", content)
        let harness = try DownloaderHarness(server, firstAttemptBytesPerSecond: 512 * 1024)
        try await harness.start("kill", server.url("kill.bin"))
        await harness.progressed("kill", beyond: 512 * 1024)
        server.killChildren()
        let interrupted = await harness.next("kill") { if case .interrupted = $0 { true } else { false } }
        guard case .interrupted(_, let error, let retryIn)? = interrupted else { Issue.record("no interruption"); return }
        #expect(error.code == .connectionLost)
        #expect(retryIn != nil)
        guard let file = await harness.completedFile("kill") else { return }
        #expect(try Fixtures.sha256(file: file) == Fixtures.sha256(content))
        #expect(!harness.events(of: "kill").contains { if case .restarted = $0 { true } else { false } })
        // The first connection, the one killed, and the one that resumed.
        #expect(server.connectionCount == 2, "\(server.logText)")
        await harness.finish()
    }

    @Test("a file changed between attempts restarts from zero and never splices")
    func changedBetweenAttempts() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let old = Fixtures.bytes(3 * 1024 * 1024, seed: 24)
        let path = try server.serve("change.bin", old)
        let harness = try DownloaderHarness(server, firstAttemptBytesPerSecond: 512 * 1024)
        try await harness.start("change", server.url("change.bin"))
        await harness.progressed("change", beyond: 256 * 1024)
        _ = try await harness.downloader.pause("change")
        let new = Fixtures.bytes(3 * 1024 * 1024 + 100, seed: 25)
        try Data(new).write(to: URL(fileURLWithPath: path))
        try await harness.downloader.resume("change")
        let restarted = await harness.next("change") { if case .restarted = $0 { true } else { false } }
        guard case .restarted(_, let reason)? = restarted else { Issue.record("no restart"); return }
        #expect(reason == .validatorChanged)
        guard let file = await harness.completedFile("change") else { return }
        #expect(try Fixtures.sha256(file: file) == Fixtures.sha256(new))
        await harness.finish()
    }

    @Test("an unknown host key is asked: rejected fails, trusted completes")
    func unknownHostKey() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(100_000, seed: 26)
        try server.serve("u.bin", content)
        let empty = server.folder.appendingPathComponent("empty_known_hosts").path
        let configuration = SFTPTransport.Configuration(knownHostsFile: empty, identityFiles: [server.clientKey], useAgent: false)

        let rejecting = try DownloaderHarness(server, configuration: configuration) { _ in .reject }
        let destination = rejecting.folder.appendingPathComponent("u.bin")
        try Data("old".utf8).write(to: destination)
        try await rejecting.start("u", server.url("u.bin"), destination: destination)
        guard let error = await rejecting.failure("u") else { return }
        #expect(error.code == .hostKeyUnknown)
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        await rejecting.finish()

        let trusting = try DownloaderHarness(server, configuration: configuration) { challenge in
            if case .unknownHostKey = challenge.kind { return .trust(remember: false) }
            return .performDefaultHandling
        }
        try await trusting.start("u", server.url("u.bin"))
        guard let file = await trusting.completedFile("u") else { return }
        #expect(try Fixtures.sha256(file: file) == Fixtures.sha256(content))
        await trusting.finish()
    }

    @Test("a changed host key fails hostKeyMismatch without retry; the destination is untouched")
    func changedHostKey() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("m.bin", Fixtures.bytes(100_000))
        try server.changeHostKey()
        let harness = try DownloaderHarness(server) { _ in .trust(remember: true) }
        let destination = harness.folder.appendingPathComponent("m.bin")
        try Data("old".utf8).write(to: destination)
        try await harness.start("m", server.url("m.bin"), destination: destination)
        guard let error = await harness.failure("m") else { return }
        #expect(error.code == .hostKeyMismatch)
        #expect(!harness.events(of: "m").contains { if case .interrupted = $0 { true } else { false } })
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(server.connectionCount == 1)
        await harness.finish()
    }

    enum Method: String, CaseIterable, Sendable { case publicKey, passphraseKey, password, keyboardInteractive, agent }

    @Test("each auth method completes a download", arguments: Method.allCases)
    func authMethods(_ method: Method) async throws {
        if method == .password || method == .keyboardInteractive { try SSHServer.requireTestUser() }
        let server = try SSHServer(.init(password: method == .password, keyboardInteractive: method == .keyboardInteractive))
        defer { server.stop() }
        let content = Fixtures.bytes(300_000, seed: 27)
        try server.serve("auth.bin", content)
        var agent: SSHAgent?
        defer { agent?.stop() }
        var configuration = SFTPTransport.Configuration(knownHostsFile: server.knownHosts, identityFiles: [], useAgent: false)
        var url = server.url("auth.bin")
        switch method {
        case .publicKey: configuration.identityFiles = [server.clientKey]
        case .passphraseKey: configuration.identityFiles = [server.encryptedClientKey]
        case .password, .keyboardInteractive: url = server.url("auth.bin", user: SSHServer.testUser)
        case .agent:
            agent = try SSHAgent(keys: [server.clientKey])
            configuration.useAgent = true
        }
        let harness = try DownloaderHarness(server, configuration: configuration) { challenge in
            switch challenge.kind {
            case .keyPassphrase: .useCredential(.passphrase(SSHServer.encryptedKeyPassphrase))
            case .password(let user): .useCredential(.password(user: user, password: SSHServer.testPassword))
            case .keyboardInteractive(_, _, let prompts): .useCredential(.responses(prompts.map { _ in SSHServer.testPassword }))
            default: .performDefaultHandling
            }
        }
        try await harness.start("auth", url)
        guard let file = await harness.completedFile("auth") else { return }
        #expect(try Fixtures.sha256(file: file) == Fixtures.sha256(content))
        await harness.finish()
    }

    @Test("a wrong password fails authenticationFailed without retry; the destination is untouched")
    func wrongPassword() async throws {
        try SSHServer.requireTestUser()
        let server = try SSHServer(.init(password: true))
        defer { server.stop() }
        try server.serve("w.bin", Fixtures.bytes(1000))
        let configuration = SFTPTransport.Configuration(knownHostsFile: server.knownHosts, identityFiles: [], useAgent: false)
        let harness = try DownloaderHarness(server, configuration: configuration) { challenge in
            guard case .password(let user) = challenge.kind, challenge.previousFailureCount == 0 else { return .reject }
            return .useCredential(.password(user: user, password: "not-the-password"))
        }
        let destination = harness.folder.appendingPathComponent("w.bin")
        try Data("old".utf8).write(to: destination)
        try await harness.start("w", server.url("w.bin", user: SSHServer.testUser), destination: destination)
        guard let error = await harness.failure("w") else { return }
        #expect(error.code == .authenticationFailed)
        #expect(!error.description.contains("not-the-password"))
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        await harness.finish()
    }

    @Test("a missing file fails notFound and a forbidden one permissionDenied; destinations untouched")
    func missingAndForbidden() async throws {
        try SSHServer.requireTestUser()
        let server = try SSHServer(.init(password: true))
        defer { server.stop() }
        try server.serve("secret.bin", Fixtures.bytes(1000), mode: 0o600)
        let harness = try DownloaderHarness(server)
        let missingDestination = harness.folder.appendingPathComponent("missing.bin")
        try Data("old".utf8).write(to: missingDestination)
        try await harness.start("missing", server.url("missing.bin"), destination: missingDestination)
        guard let missingError = await harness.failure("missing") else { return }
        #expect(missingError.code == .notFound)
        #expect(try Data(contentsOf: missingDestination) == Data("old".utf8))

        try await harness.start("secret", server.url("secret.bin", user: SSHServer.testUser, password: SSHServer.testPassword))
        guard let deniedError = await harness.failure("secret") else { return }
        #expect(deniedError.code == .permissionDenied)
        #expect(!FileManager.default.fileExists(atPath: harness.folder.appendingPathComponent("secret.bin").path))
        await harness.finish()
    }

    @Test("cancel stops the download and leaves neither destination nor staging file")
    func cancel() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("c.bin", Fixtures.bytes(4 * 1024 * 1024, seed: 28))
        let harness = try DownloaderHarness(server)
        let destination = try await harness.start("c", server.url("c.bin"), rate: 512 * 1024)
        await harness.progressed("c", beyond: 64 * 1024)
        try await harness.downloader.cancel("c")
        let outcome = await harness.outcome("c")
        guard case .cancelled? = outcome else { Issue.record("not cancelled: \(String(describing: outcome))"); return }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".part"))
        await harness.finish()
    }

    @Test("twenty files from one host, four at a time, share four SSH sessions")
    func manyFilesShareSessions() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        var digests: [String: String] = [:]
        for index in 0..<20 {
            let content = Fixtures.bytes(50_000 + index, seed: UInt64(100 + index))
            try server.serve("many\(index).bin", content)
            digests["many\(index)"] = Fixtures.sha256(content)
        }
        let harness = try DownloaderHarness(server)
        for index in 0..<20 { try await harness.start("many\(index)", server.url("many\(index).bin")) }
        let outcomes = await harness.outcomes(Set((0..<20).map { "many\($0)" }))
        for index in 0..<20 {
            let outcome = outcomes["many\(index)"]
            guard case .completed(_, let file)? = outcome else { Issue.record("many\(index): \(String(describing: outcome))"); continue }
            #expect(try Fixtures.sha256(file: file) == digests["many\(index)"])
        }
        #expect(server.connectionCount <= 4)
        #expect(harness.transport.sessionsOpened <= 4)
        await harness.finish()
    }
}
