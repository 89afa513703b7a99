import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// `S3Transport` over HTTPS with a private CA: nginx with the test CA's certificate in front of
/// moto (`S3TLSFront`), signatures checked by moto behind it. Trusting the CA
/// (`Configuration.caBundlePath`) downloads byte-exact, in one piece and in ranges; without it the
/// download fails once with a TLS error and leaves nothing at the destination.
@Suite("S3 transport over TLS with a private CA", .timeLimit(.minutes(10)))
struct S3TLSTests {
    /// Runs `body` with the moto fixture and nginx on HTTPS in front of it, stopped after.
    func withFront(_ body: (S3Fixture, S3TLSFront) async throws -> Void) async throws {
        try await S3Fixture.with { fixture in
            let front = try S3TLSFront(for: fixture.server)
            defer { front.stop() }
            try await body(fixture, front)
        }
    }

    /// A transport signing with the IAM user's keys for `front`'s HTTPS endpoint, trusting
    /// `caBundle` (nil: the system's trust store).
    func transport(_ fixture: S3Fixture, _ front: S3TLSFront, caBundle: URL?) throws -> S3Transport {
        try S3Transport(configuration: .init(endpoint: front.endpoint, environment: fixture.server.environment(),
                                             caBundlePath: caBundle?.path, proxy: .none))
    }

    @Test("with the private CA as the CA bundle, a download through the Downloader is byte-exact, over the TLS endpoint")
    func trustedCA() async throws {
        try await withFront { fixture, front in
            let content = try fixture.serve("tls/a b.bin", size: 2 * 1024 * 1024 + 11, seed: 21)
            let run = try await fixture.download(fixture.url("tls/a b.bin"),
                                                 transport: try transport(fixture, front, caBundle: front.caCertificate))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try Data(contentsOf: file) == content)
            // The object came through nginx's TLS port, signed for that host, and moto accepted it.
            // (nginx logs a request just after its last byte: its line may come after the download.)
            try await poll("nginx logged the signed GET answered 200") {
                front.nginx.accessLog.contains { $0.hasPrefix("200 \"GET /fdl-test/tls/a%20b.bin") }
            }
        }
    }

    @Test("without the CA, the download fails once with tlsFailure, not retried, nothing at the destination")
    func untrustedCA() async throws {
        try await withFront { fixture, front in
            try fixture.serve("tls/refused.bin", size: 100_000, seed: 22)
            let run = try await fixture.download(fixture.url("tls/refused.bin"),
                                                 transport: try transport(fixture, front, caBundle: nil))
            let error = try #require(run.error, "the download ended without an error: \(String(describing: run.file))")
            #expect(error.code == .tlsFailure)
            #expect(!error.isRetryable)
            #expect(error.message.contains("TLS failed for"), "\(error.message)")
            #expect(error.message.contains("certificate"), "\(error.message)")
            #expect(run.events.filter { if case .interrupted = $0 { true } else { false } }.isEmpty, "\(run.events)")
            // No request reached nginx's HTTP layer (the handshake failed), and no file is left.
            #expect(front.nginx.accessLog.isEmpty, "\(front.nginx.accessLog)")
            let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).filter { $0.hasPrefix("out-") }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("four connections fetch ranges of one object over the TLS endpoint, byte-exact")
    func segments() async throws {
        try await withFront { fixture, front in
            let content = try fixture.serve("tls/segments.bin", size: 24 * 1024 * 1024, seed: 23)
            let counting = RangeCountingTransport(try transport(fixture, front, caBundle: front.caCertificate))
            let run = try await SingleDownload.run(fixture.url("tls/segments.bin"), transport: counting, schemes: "s3",
                                                   directory: fixture.directory, maxConnections: 4, limit: .seconds(120))
            #expect(try Data(contentsOf: try #require(run.file, "\(String(describing: run.error))")) == content)
            #expect(counting.ranged.withLock { $0 } >= 2)
            try await poll("nginx logged at least two ranged GETs answered 206") {
                front.nginx.accessLog.filter { $0.hasPrefix("206 ") && $0.contains("range=\"bytes=") }.count >= 2
            }
        }
    }
}
