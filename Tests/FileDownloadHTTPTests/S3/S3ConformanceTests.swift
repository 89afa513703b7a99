import FileDownload
import FileDownloadConformance
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

@Suite("S3Transport passes TransportConformance against moto", .timeLimit(.minutes(10)))
struct S3ConformanceTests {
    @Test("every conformance check that applies passes (ranges included)")
    func conformance() async throws {
        try await S3Fixture.with { fixture in
            let content = try fixture.serve("conformance.bin", size: 1024 * 1024, seed: 14)
            let replaced = Data((0..<content.count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            let current = LockedData(content)
            let conformance = ConformanceFixture(
                resource: fixture.url("conformance.bin"),
                expectedContent: { current.value },
                missingResource: fixture.url("missing.bin"),
                changeResource: {
                    try fixture.server.put(replaced, bucket: "fdl-test", key: "conformance.bin")
                    current.value = replaced
                },
                scratchDirectory: fixture.directory.url
            )
            let transport = try fixture.transport()
            let report = await TransportConformance(transport: transport, fixture: conformance).run()
            #expect(report.passed, "\(report)")
            // moto serves every range it is asked (no "range ignored" resource) and has no object
            // that stalls (the cancellation checks need one); the credentials are the transport's,
            // not the auth door's: those checks do not apply.
            #expect(Set(report.notApplicable.map(\.name)) == [
                "range ignored by the server", "cancellation", "nothing written after return",
                "authentication rejected", "authentication with the credential",
            ], "\(report)")
            await transport.shutdown()
        }
    }
}
