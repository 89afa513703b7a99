import FileDownload
@testable import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Testing

/// `known_hosts` read with OpenSSH's semantics (sshd(8), SSH_KNOWN_HOSTS FILE FORMAT), checked by
/// connecting `SFTPTransport` to the real sshd with a file written for each case.
@Suite("known_hosts with OpenSSH's semantics against sshd", .serialized)
struct SFTPKnownHostsTests {
    /// What the connection must end with.
    enum Outcome: Sendable, Equatable {
        case accepted
        /// Fails with this code, and a message containing this text; `asked` says whether the
        /// delegate was asked about an unknown key.
        case refused(DownloadError.Code, String, asked: Bool)
    }

    /// A known_hosts text built from the server's entry name, its key (`type base64`) and another
    /// key of the same type, and what must happen.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var file: @Sendable (_ entry: String, _ key: String, _ other: String) -> String
        var outcome: Outcome
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "@revoked wins over a line that accepts the key",
             file: { e, k, _ in "\(e) \(k)\n@revoked * \(k)\n" },
             outcome: .refused(.hostKeyMismatch, "is revoked", asked: false)),
        Case(name: "@revoked of another key leaves the accepting line alone",
             file: { e, k, o in "@revoked \(e) \(o)\n\(e) \(k)\n" },
             outcome: .accepted),
        Case(name: "@cert-authority alone never accepts the plain key, and says why",
             file: { e, k, _ in "@cert-authority \(e) \(k)\n" },
             outcome: .refused(.hostKeyUnknown, "libssh2 1.10 cannot verify host certificates", asked: true)),
        Case(name: "a pattern with * and ? accepts; comments, blank lines, tabs and a trailing comment are skipped",
             file: { _, k, _ in "# hosts\n\n   \n[127.0.0.?]:*\t\(k) a comment\n" },
             outcome: .accepted),
        Case(name: "a pattern matching the host with another key is a mismatch",
             file: { _, _, o in "*,other.example \(o)\n" },
             outcome: .refused(.hostKeyMismatch, "changed", asked: false)),
        Case(name: "a negated pattern excludes the host from its line",
             file: { e, k, _ in "*,!\(e) \(k)\n" },
             outcome: .refused(.hostKeyUnknown, "is not in", asked: true)),
        Case(name: "a negated pattern does not hide another line that accepts",
             file: { e, k, o in "*,!\(e) \(o)\n\(e) \(k)\n" },
             outcome: .accepted),
        Case(name: "the plain host without [host]:port does not name a server on another port",
             file: { _, k, _ in "127.0.0.1 \(k)\n" },
             outcome: .refused(.hostKeyUnknown, "is not in", asked: true)),
        Case(name: "an unknown marker skips its line",
             file: { e, k, _ in "@trusted \(e) \(k)\n" },
             outcome: .refused(.hostKeyUnknown, "is not in", asked: true)),
    ]

    /// `type base64` of the public key beside the private key file `path`.
    private func publicKey(_ path: String) throws -> String {
        try String(contentsOfFile: path + ".pub", encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
    }

    @Test("markers, patterns, negation, [host]:port and comments", arguments: cases)
    func knownHosts(_ c: Case) async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("a.bin", Fixtures.bytes(1000))
        let key = try publicKey(server.hostKey)
        let otherFile = server.folder.appendingPathComponent("other_key").path
        try ChildProcess.runChecked(["/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", otherFile])
        let other = try publicKey(otherFile)
        let path = server.folder.appendingPathComponent("known_hosts_case").path
        try c.file("[127.0.0.1]:\(server.port)", key, other).write(toFile: path, atomically: true, encoding: .utf8)

        let transport = SFTPTransport(configuration: .init(knownHostsFile: path, identityFiles: [server.clientKey], useAgent: false))
        let log = ChallengeLog()
        switch c.outcome {
        case .accepted:
            let fetched = try await Fixtures.fetch(transport, server.url("a.bin")) { log.record($0); return .reject }
            #expect(fetched.bytes.count == 1000)
            #expect(log.all.isEmpty)
        case .refused(let code, let text, let asked):
            let error = await #expect(throws: DownloadError.self) {
                _ = try await Fixtures.fetch(transport, server.url("a.bin")) { log.record($0); return .reject }
            }
            #expect(error?.code == code)
            #expect(error?.isRetryable == false)
            #expect(error?.message.contains(text) == true, "\(String(describing: error?.message))")
            #expect(log.all.isEmpty == !asked)
        }
        await transport.shutdown()
    }

    @Test("accept-new does not trust a host the file names only in an @cert-authority line")
    func acceptNewUnderAuthority() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        try server.serve("a.bin", Fixtures.bytes(1000))
        let key = try publicKey(server.hostKey)
        let path = server.folder.appendingPathComponent("known_hosts_ca").path
        let text = "@cert-authority [127.0.0.1]:\(server.port) \(key)\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let transport = SFTPTransport(configuration: .init(knownHostsFile: path, hostKeyPolicy: .acceptNew,
                                                           identityFiles: [server.clientKey], useAgent: false))
        let error = await #expect(throws: DownloadError.self) {
            _ = try await Fixtures.fetch(transport, server.url("a.bin")) { _ in .reject }
        }
        #expect(error?.code == .hostKeyUnknown)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text, "nothing may be appended")
        await transport.shutdown()
    }
}
