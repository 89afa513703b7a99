import FileDownload
import FileDownloadConformance
import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Testing

@Suite("SFTPTransport passes TransportConformance against sshd", .serialized)
struct SFTPConformanceTests {
    @Test("every conformance check passes (ranges included)")
    func conformance() async throws {
        try SSHServer.requireTestUser()
        let server = try SSHServer(.init(password: true))
        defer { server.stop() }
        let scratch = try TemporaryDirectory("sftp-test").url
        defer { try? FileManager.default.removeItem(at: scratch) }
        let path = try server.serve("conformance.bin", Fixtures.bytes(1024 * 1024, seed: 11))
        // The stalling resource: a sparse 4 GiB file, far more than is read before the cancel.
        let stall = server.data.appendingPathComponent("stall.bin").path
        #expect(FileManager.default.createFile(atPath: stall, contents: nil))
        #expect(truncate(stall, 4 << 30) == 0)
        let user = SSHServer.testUser
        let password = SSHServer.testPassword
        let fixture = ConformanceFixture(
            resource: server.url("conformance.bin", user: user, password: password),
            expectedContent: { try Data(contentsOf: URL(fileURLWithPath: path)) },
            missingResource: server.url("missing.bin", user: user, password: password),
            changeResource: {
                try Data(Fixtures.bytes(1024 * 1024, seed: 12)).write(to: URL(fileURLWithPath: path))
                // SFTP reports mtime in whole seconds: move it clearly away from the old one.
                var times = [timeval(tv_sec: time(nil) + 100, tv_usec: 0), timeval(tv_sec: time(nil) + 100, tv_usec: 0)]
                _ = utimes(path, &times)
            },
            stallingResource: server.url("stall.bin", user: user, password: password),
            authenticatedResource: (server.url("conformance.bin", user: user), .password(user: user, password: password)),
            authenticatedContent: { try Data(contentsOf: URL(fileURLWithPath: path)) },
            scratchDirectory: scratch
        )
        let transport = Fixtures.transport(server, identityFiles: [])
        let report = await TransportConformance(transport: transport, fixture: fixture).run()
        #expect(report.passed, "\(report)")
        // An SFTP server has no way to ignore a seek: the only check without its fixture part.
        #expect(report.notApplicable.map(\.name) == ["range ignored by the server"], "\(report)")
        await transport.shutdown()
    }
}
