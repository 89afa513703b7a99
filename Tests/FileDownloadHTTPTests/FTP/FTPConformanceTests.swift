import FileDownload
import FileDownloadConformance
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

@Suite("FTPTransport passes TransportConformance against vsftpd")
struct FTPConformanceTests {
    @Test("every conformance check passes (ranges included)")
    func conformance() async throws {
        try await FTPFixture.with { fixture in
            let path = fixture.server.root.appending(path: "conformance.bin")
            try fixture.serve("conformance.bin", size: 1024 * 1024, seed: 14)
            // The stalling resource: a sparse 4 GiB file, far more than is read before the cancel.
            let stall = fixture.server.root.appending(path: "stall.bin").path
            #expect(FileManager.default.createFile(atPath: stall, contents: nil))
            #expect(truncate(stall, 4 << 30) == 0)
            let conformance = ConformanceFixture(
                resource: fixture.server.url("conformance.bin"),
                expectedContent: { try Data(contentsOf: path) },
                missingResource: fixture.server.url("missing.bin"),
                changeResource: {
                    // MDTM has whole seconds: the new version is clearly later.
                    try fixture.serve("conformance.bin", size: 1024 * 1024, seed: 15, modified: Date(timeIntervalSince1970: 1_700_000_500))
                },
                stallingResource: fixture.server.url("stall.bin"),
                authenticatedResource: (fixture.server.url("conformance.bin", user: "ftp"), .password(user: "ftp", password: "tester@example.org")),
                authenticatedContent: { try Data(contentsOf: path) },
                scratchDirectory: fixture.directory.url
            )
            let transport = try FTPTransport()
            let report = await TransportConformance(transport: transport, fixture: conformance).run()
            #expect(report.passed, "\(report)")
            // FTP has no way to ignore REST silently: the only check without its fixture part.
            #expect(report.notApplicable.map(\.name) == ["range ignored by the server"], "\(report)")
            await transport.shutdown()
        }
    }
}
