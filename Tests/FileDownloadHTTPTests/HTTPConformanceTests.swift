import FileDownload
import FileDownloadConformance
import FileDownloadHTTP
import Foundation
import Testing

/// The transport-conformance suite of the core, against nginx (ranges, validators, 404) and the
/// fault server (stall, auth), over HTTP and over HTTPS with the test CA.
@Suite("HTTPTransport conformance")
struct HTTPConformanceTests {
    @Test("HTTPTransport passes TransportConformance, none skipped", arguments: [false, true])
    func conformance(https: Bool) async throws {
        try await HTTPFixture.with(nginx: true, tls: https) { fx in
            let served = fx.served.appendingPathComponent("small.bin")
            let faults = https ? fx.faultTLS! : fx.fault
            let scratch = fx.directory.file("scratch")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let fixture = ConformanceFixture(
                resource: fx.nginx!.fileURL("small.bin", https: https),
                expectedContent: { try Data(contentsOf: served) },
                missingResource: fx.nginx!.fileURL("missing.bin", https: https),
                rangeIgnoringResource: fx.nginx!.fileURL("no-ranges/small.bin", https: https),
                changeResource: {
                    // Same size, new bytes, and a later mtime so nginx's ETag changes.
                    try TestFiles.write(served, size: HTTPFixture.smallSize, seed: UInt64.random(in: 10...1000))
                    let later = Date().addingTimeInterval(10)
                    try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: served.path)
                },
                stallingResource: faults.url("small.bin", "stall=100000"),
                authenticatedResource: (faults.url("small.bin", "auth=basic:alice:s3cret"),
                                        .password(user: "alice", password: "s3cret")),
                authenticatedContent: { try Data(contentsOf: served) },
                scratchDirectory: scratch
            )
            let transport = try HTTPTransport(configuration: .init(caBundlePath: fx.certificates!.caCertificate.path, proxy: .none))
            let report = await TransportConformance(transport: transport, fixture: fixture).run()
            #expect(report.passed, "\(report)")
            #expect(report.notApplicable.isEmpty, "\(report)")
            await transport.shutdown()
        }
    }
}
