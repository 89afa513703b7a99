import FileDownload
@testable import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

@Suite("SFTPTransport against OpenSSH sshd", .serialized)
struct SFTPTransportTests {
    @Test("downloads a whole file with public key auth; the head names size and validator")
    func wholeFile() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(3 * 1024 * 1024 + 17)
        try server.serve("whole.bin", content)
        let transport = Fixtures.transport(server)
        let fetched = try await Fixtures.fetch(transport, server.url("whole.bin"))
        #expect(fetched.bytes == content)
        #expect(fetched.head?.disposition == .resumed(at: 0))
        #expect(fetched.head?.expectedLength == Int64(content.count))
        #expect(fetched.head?.validator?.kind == .sizeAndModificationTime)
        #expect(fetched.lateWrites == 0)
        await transport.shutdown()
    }

    @Test("resumes at the offset when the validator matches; restarts when it changed; complete at the end")
    func resume() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(1_000_000, seed: 2)
        try server.serve("resume.bin", content)
        let transport = Fixtures.transport(server)
        let first = try await Fixtures.fetch(transport, server.url("resume.bin"))
        let validator = try #require(first.head?.validator)

        let half = Array(content[0..<400_000])
        let resumed = try await Fixtures.fetch(transport, server.url("resume.bin"), existing: half, validator: validator)
        #expect(resumed.head?.disposition == .resumed(at: 400_000))
        #expect(resumed.bytes == content)

        let done = try await Fixtures.fetch(transport, server.url("resume.bin"), existing: content, validator: validator)
        #expect(done.head?.disposition == .complete)
        #expect(done.bytes == content)

        let changed = Fixtures.bytes(1_000_001, seed: 3)
        try server.serve("resume.bin", changed)
        let restarted = try await Fixtures.fetch(transport, server.url("resume.bin"), existing: half, validator: validator)
        #expect(restarted.head?.disposition == .restarted(.validatorChanged))
        #expect(restarted.bytes == changed)

        let noValidator = try await Fixtures.fetch(transport, server.url("resume.bin"), existing: half)
        #expect(noValidator.head?.disposition == .restarted(.validatorChanged))
        #expect(noValidator.bytes == changed)
        await transport.shutdown()
    }

    @Test("an unknown host key is asked; rejected fails hostKeyUnknown, trusted and remembered is appended")
    func unknownHostKey() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("a.bin", Fixtures.bytes(1000))
        let empty = server.folder.appendingPathComponent("empty_known_hosts").path
        let configuration = SFTPTransport.Configuration(knownHostsFile: empty, identityFiles: [server.clientKey], useAgent: false)

        let log = ChallengeLog()
        let rejecting = SFTPTransport(configuration: configuration)
        let error = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(rejecting, server.url("a.bin")) { log.record($0); return .reject }
        }
        #expect(error?.code == .hostKeyUnknown)
        #expect(error?.isRetryable == false)
        guard case .unknownHostKey(let host, let port, let type, let fingerprint)? = log.all.first else {
            Issue.record("no unknownHostKey challenge: \(log.all)")
            return
        }
        #expect(host == "127.0.0.1" && port == server.port && type == "ssh-ed25519" && fingerprint.hasPrefix("SHA256:"))
        #expect(!FileManager.default.fileExists(atPath: empty))
        await rejecting.shutdown()

        let onceLog = ChallengeLog()
        let once = SFTPTransport(configuration: configuration)
        let fetched = try await Fixtures.fetch(once, server.url("a.bin")) { onceLog.record($0); return .trust(remember: false) }
        #expect(fetched.bytes.count == 1000)
        #expect(!FileManager.default.fileExists(atPath: empty))
        await once.shutdown()

        let remembering = SFTPTransport(configuration: configuration)
        _ = try await Fixtures.fetch(remembering, server.url("a.bin")) { _ in .trust(remember: true) }
        let written = try String(contentsOfFile: empty, encoding: .utf8)
        #expect(written.hasPrefix("[127.0.0.1]:\(server.port) ssh-ed25519 "))
        await remembering.shutdown()

        let later = ChallengeLog()
        let trusted = SFTPTransport(configuration: configuration)
        _ = try await Fixtures.fetch(trusted, server.url("a.bin")) { later.record($0); return .reject }
        #expect(later.all.isEmpty)
        await trusted.shutdown()
    }

    @Test("a hashed known_hosts entry is accepted")
    func hashedKnownHosts() async throws {
        let server = try SSHServer(.init(hostKeyType: "ecdsa"))
        defer { server.stop() }
        try server.serve("a.bin", Fixtures.bytes(5000))
        let hashed = server.folder.appendingPathComponent("hashed").path
        let line = try server.hashedKnownHostsLine()
        #expect(line.hasPrefix("|1|"))
        try ("# comment\n@cert-authority *.example ssh-ed25519 AAAA\n" + line).write(toFile: hashed, atomically: true, encoding: .utf8)
        let transport = SFTPTransport(configuration: .init(knownHostsFile: hashed, identityFiles: [server.clientKey], useAgent: false))
        let fetched = try await Fixtures.fetch(transport, server.url("a.bin")) { _ in .reject }
        #expect(fetched.bytes.count == 5000)
        await transport.shutdown()
    }

    @Test("a changed host key fails hostKeyMismatch, not retryable, with both fingerprints, before any byte")
    func changedHostKey() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("a.bin", Fixtures.bytes(1000))
        try server.changeHostKey()
        let transport = Fixtures.transport(server)
        let log = ChallengeLog()
        let error = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(transport, server.url("a.bin")) { log.record($0); return .trust(remember: true) }
        }
        #expect(error?.code == .hostKeyMismatch)
        #expect(error?.isRetryable == false)
        #expect(error?.message.hasPrefix("host key for 127.0.0.1:\(server.port) changed (expected SHA256:") == true)
        #expect(error?.message.contains(", got SHA256:") == true)
        #expect(log.all.isEmpty)
        await transport.shutdown()
    }

    @Test("a missing file is notFound and a forbidden one permissionDenied, neither retryable")
    func missingAndForbidden() async throws {
        try SSHServer.requireTestUser()
        let server = try SSHServer(.init(password: true))
        defer { server.stop() }
        try server.serve("secret.bin", Fixtures.bytes(100), mode: 0o600)
        let transport = Fixtures.transport(server)
        let missing = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(transport, server.url("missing.bin"))
        }
        #expect(missing?.code == .notFound)
        #expect(missing?.isRetryable == false)

        let denied = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(transport, server.url("secret.bin", user: SSHServer.testUser, password: SSHServer.testPassword))
        }
        #expect(denied?.code == .permissionDenied)
        #expect(denied?.isRetryable == false)
        await transport.shutdown()
    }

    @Test("password auth: from the URL, from the password challenge; a wrong one fails authenticationFailed")
    func password() async throws {
        try SSHServer.requireTestUser()
        let server = try SSHServer(.init(password: true))
        defer { server.stop() }
        try server.serve("p.bin", Fixtures.bytes(2000))
        let transport = Fixtures.transport(server, identityFiles: [])
        let viaURL = try await Fixtures.fetch(transport, server.url("p.bin", user: SSHServer.testUser, password: SSHServer.testPassword))
        #expect(viaURL.bytes.count == 2000)

        let log = ChallengeLog()
        let viaChallenge = try await Fixtures.fetch(transport, server.url("p.bin", user: SSHServer.testUser)) { challenge in
            log.record(challenge)
            return .useCredential(.password(user: SSHServer.testUser, password: SSHServer.testPassword))
        }
        #expect(viaChallenge.bytes.count == 2000)
        #expect(log.all == [.password(user: SSHServer.testUser)])

        await transport.shutdown()

        // A fresh transport: the pooled session above was authenticated already.
        let fresh = Fixtures.transport(server, identityFiles: [])
        let failures = Mutex<[Int]>([])
        let wrong = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(fresh, server.url("p.bin", user: SSHServer.testUser)) { challenge in
                failures.withLock { $0.append(challenge.previousFailureCount) }
                return challenge.previousFailureCount == 0 ? .useCredential(.password(user: SSHServer.testUser, password: "wrong")) : .reject
            }
        }
        #expect(wrong?.code == .authenticationFailed)
        #expect(wrong?.isRetryable == false)
        #expect(wrong?.description.contains("wrong") == false)
        #expect(failures.withLock { $0 } == [0, 1])
        await fresh.shutdown()
    }

    @Test("keyboard-interactive auth answers the prompts through the challenge")
    func keyboardInteractive() async throws {
        try SSHServer.requireTestUser()
        let server = try SSHServer(.init(keyboardInteractive: true))
        defer { server.stop() }
        try server.serve("k.bin", Fixtures.bytes(3000))
        let transport = Fixtures.transport(server, identityFiles: [])
        let log = ChallengeLog()
        let fetched = try await Fixtures.fetch(transport, server.url("k.bin", user: SSHServer.testUser)) { challenge in
            log.record(challenge)
            guard case .keyboardInteractive(_, _, let prompts) = challenge.kind else { return .reject }
            return .useCredential(.responses(prompts.map { _ in SSHServer.testPassword }))
        }
        #expect(fetched.bytes.count == 3000)
        guard case .keyboardInteractive(_, _, let prompts)? = log.all.first else {
            Issue.record("no keyboard-interactive challenge: \(log.all)")
            return
        }
        #expect(prompts.first?.lowercased().contains("password") == true)
        await transport.shutdown()
    }

    @Test("a passphrase-protected key asks keyPassphrase; a wrong answer fails authenticationFailed")
    func keyPassphrase() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("e.bin", Fixtures.bytes(4000))
        let transport = Fixtures.transport(server, identityFiles: [server.encryptedClientKey])
        let log = ChallengeLog()
        let fetched = try await Fixtures.fetch(transport, server.url("e.bin")) { challenge in
            log.record(challenge)
            return .useCredential(.passphrase(SSHServer.encryptedKeyPassphrase))
        }
        #expect(fetched.bytes.count == 4000)
        #expect(log.all == [.keyPassphrase(keyFile: server.encryptedClientKey)])
        await transport.shutdown()

        let wrongTransport = Fixtures.transport(server, identityFiles: [server.encryptedClientKey])
        let wrong = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(wrongTransport, server.url("e.bin")) { _ in .useCredential(.passphrase("nope")) }
        }
        #expect(wrong?.code == .authenticationFailed)
        await wrongTransport.shutdown()
    }

    @Test("paths with spaces and UTF-8, and ~/ relative to the login directory")
    func paths() async throws {
        try SSHServer.requireTestUser()
        let server = try SSHServer(.init(password: true))
        defer { server.stop() }
        let content = Fixtures.bytes(777, seed: 9)
        try server.serve("a file with spaces – ünïcødé 日本.bin", content)
        let transport = Fixtures.transport(server)
        let url = server.url("a file with spaces – ünïcødé 日本.bin")
        #expect(url.absoluteString.contains("%20"))
        #expect(try await Fixtures.fetch(transport, url).bytes == content)

        let home = try #require(FileManager.default.homeDirectory(forUser: SSHServer.testUser))
        let name = "fdl-tilde-\(UUID().uuidString).bin"
        let homeFile = home.appendingPathComponent(name)
        try Data(content).write(to: homeFile)
        defer { try? FileManager.default.removeItem(at: homeFile) }
        let tilde = URL(string: "sftp://\(SSHServer.testUser):\(SSHServer.testPassword)@127.0.0.1:\(server.port)/~/\(name)")!
        #expect(try await Fixtures.fetch(transport, tilde).bytes == content)
        await transport.shutdown()
    }

    @Test("many files from one host share sessions: 24 files, 4 at a time, at most 4 SSH connections")
    func sessionReuse() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        for index in 0..<24 { try server.serve("f\(index).bin", Fixtures.bytes(20_000 + index, seed: UInt64(index))) }
        let transport = Fixtures.transport(server, maxSessionsPerHost: 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    let fetched = try await Fixtures.fetch(transport, server.url("f\(index).bin"))
                    #expect(fetched.bytes == Fixtures.bytes(20_000 + index, seed: UInt64(index)))
                }
            }
            try await group.waitForAll()
        }
        #expect(transport.sessionsOpened <= 4)
        #expect(server.connectionCount <= 4)
        #expect(server.connectionCount >= 1)
        await transport.shutdown()
    }

    @Test("changing the known hosts file or the configuration drops pooled sessions")
    func configurationChangeDropsSessions() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("a.bin", Fixtures.bytes(1000))
        let transport = Fixtures.transport(server)
        _ = try await Fixtures.fetch(transport, server.url("a.bin"))
        _ = try await Fixtures.fetch(transport, server.url("a.bin"))
        #expect(transport.sessionsOpened == 1)

        // The known hosts file loses the key: the pooled session is not reused, the host is asked.
        try "".write(toFile: server.knownHosts, atomically: true, encoding: .utf8)
        let log = ChallengeLog()
        await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(transport, server.url("a.bin")) { log.record($0); return .reject }
        }
        #expect(log.all.count == 1)
        #expect(transport.sessionsOpened == 2)

        var configuration = transport.configuration
        configuration.hostKeyPolicy = .acceptNew
        transport.configuration = configuration
        _ = try await Fixtures.fetch(transport, server.url("a.bin"))
        #expect(transport.sessionsOpened == 3)
        await transport.shutdown()
    }

    @Test("a session broken mid-transfer fails connectionLost, retryable; the next attempt reconnects")
    func connectionLost() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(8 * 1024 * 1024, seed: 4)
        try server.serve("big.bin", content)
        let transport = Fixtures.transport(server)
        let running = try await Fixtures.start(transport, server.url("big.bin"), options: TransferOptions(maxBytesPerSecond: 2 * 1024 * 1024))
        defer { try? FileManager.default.removeItem(at: running.folder) }
        let (sink, path) = (running.sink, running.path)
        server.killChildren()
        let error = await #expect(throws: DownloadError.self) { try await running.task.value }
        #expect(error?.code == .connectionLost)
        #expect(error?.isRetryable == true)
        sink.seal()
        let validator = try #require(sink.head?.validator)
        let kept = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(kept.count < content.count && kept == Array(content[0..<kept.count]))

        let resumed = try await Fixtures.fetch(transport, server.url("big.bin"), existing: kept, validator: validator)
        #expect(resumed.head?.disposition == .resumed(at: Int64(kept.count)))
        #expect(resumed.bytes == content)
        await transport.shutdown()
    }

    @Test("a server that stops sending fails timedOut (retryable) after the request timeout")
    func idleTimeout() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("big.bin", Fixtures.bytes(8 * 1024 * 1024, seed: 6))
        let transport = Fixtures.transport(server)
        let options = TransferOptions(requestTimeout: .milliseconds(500), maxBytesPerSecond: 1024 * 1024)
        let running = try await Fixtures.start(transport, server.url("big.bin"), options: options)
        defer { try? FileManager.default.removeItem(at: running.folder) }
        server.signalChildren(SIGSTOP)
        defer { server.signalChildren(SIGCONT) }
        let error = await #expect(throws: DownloadError.self) { try await running.task.value }
        #expect(error?.code == .timedOut)
        #expect(error?.isRetryable == true)
        running.sink.seal()
        await transport.shutdown()
    }

    @Test("cancel stops the transfer, throws cancelled, and nothing is written afterwards")
    func cancel() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("big.bin", Fixtures.bytes(8 * 1024 * 1024, seed: 5))
        let transport = Fixtures.transport(server)
        let running = try await Fixtures.start(transport, server.url("big.bin"), options: TransferOptions(maxBytesPerSecond: 1024 * 1024))
        defer { try? FileManager.default.removeItem(at: running.folder) }
        let sink = running.sink
        running.task.cancel()
        let error = await #expect(throws: (any Error).self) { try await running.task.value }
        #expect(DownloadError.wrapping(error!).code == .cancelled)
        let length = sink.fileLength
        sink.seal()
        #expect(length < 8 * 1024 * 1024)
        #expect(sink.lateWriteAttempts == 0)
        await transport.shutdown()
    }

    @Test("connection refused is connectionFailed and retryable")
    func refused() async throws {
        let refusing = try RefusingPort()
        let transport = SFTPTransport(configuration: .init(knownHostsFile: "/nonexistent", identityFiles: [], useAgent: false))
        let error = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(transport, URL(string: "sftp://127.0.0.1:\(refusing.port)/x")!)
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.isRetryable == true)
    }

    @Test("an empty file downloads as empty; a directory is notFound, not retryable")
    func emptyFileAndDirectory() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("empty.bin", [])
        try FileManager.default.createDirectory(at: server.data.appendingPathComponent("folder"), withIntermediateDirectories: true)
        let transport = Fixtures.transport(server)
        let empty = try await Fixtures.fetch(transport, server.url("empty.bin"))
        #expect(empty.bytes.isEmpty)
        #expect(empty.head?.expectedLength == 0)
        let error = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(transport, server.url("folder"))
        }
        #expect(error?.code == .notFound)
        #expect(error?.isRetryable == false)
        await transport.shutdown()
    }

    @Test("URLs without a file are invalidURL")
    func invalidURL() async throws {
        let transport = SFTPTransport()
        for text in ["sftp://127.0.0.1/", "sftp:///file", "sftp://127.0.0.1/dir/"] {
            let error = await #expect(throws: DownloadError.self) {
                _ = try await Fixtures.fetch(transport, URL(string: text)!)
            }
            #expect(error?.code == .invalidURL)
        }
    }
}
