import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// `FTPTransport` over TLS against vsftpd with the tests' private CA: explicit (`AUTH TLS`) and
/// implicit (`ftps://`), verified as for HTTPS.
@Suite("FTPS against vsftpd", .timeLimit(.minutes(2)))
struct FTPSTests {
    @Test("explicit FTPS: AUTH TLS, verified with the CA bundle, byte-exact; resume works over TLS too")
    func explicitTLS() async throws {
        let certificates = try TemporaryDirectory("ftps-ca")
        defer { certificates.remove() }
        let ca = try TestCertificates(in: certificates.url)
        try await FTPFixture.with(tls: .explicit(ca)) { fixture in
            let content = try fixture.serve("tls.bin", size: 700_000, seed: 11)
            let configuration = FTPTransport.Configuration(requiresTLS: true, caBundlePath: ca.caCertificate.path)
            let run = try await fixture.download(fixture.server.url("tls.bin"), transport: try FTPTransport(configuration: configuration))
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try Data(contentsOf: file) == content)
            #expect(fixture.server.commands.contains("AUTH TLS"))

            let staging = fixture.directory.file("tls.part")
            try content.prefix(300_000).write(to: staging)
            // A new transport: the downloader's shutdown stopped the first one.
            let sink = try await fixture.attempt(try FTPTransport(configuration: configuration), fixture.server.url("tls.bin"), into: staging,
                                                 validator: .sizeAndModificationTime(size: 700_000, mtime: 1_700_000_000))
            #expect(sink.head?.disposition == .resumed(at: 300_000))
            #expect(try Data(contentsOf: staging) == content)
        }
    }

    @Test("implicit FTPS (ftps://) verified with the CA bundle is byte-exact")
    func implicitTLS() async throws {
        let certificates = try TemporaryDirectory("ftps-ca")
        defer { certificates.remove() }
        let ca = try TestCertificates(in: certificates.url)
        try await FTPFixture.with(tls: .implicit(ca)) { fixture in
            let content = try fixture.serve("implicit.bin", size: 500_000, seed: 12)
            let transport = try FTPTransport(configuration: .init(caBundlePath: ca.caCertificate.path))
            let run = try await fixture.download(fixture.server.url("implicit.bin", scheme: "ftps"), transport: transport)
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try Data(contentsOf: file) == content)
        }
    }

    @Test("a server certificate the trust store does not know fails tlsFailure, not retried; plain FTP to a TLS-only server is refused")
    func untrustedCertificate() async throws {
        let certificates = try TemporaryDirectory("ftps-ca")
        defer { certificates.remove() }
        let ca = try TestCertificates(in: certificates.url)
        try await FTPFixture.with(tls: .explicit(ca)) { fixture in
            try fixture.serve("tls.bin", size: 1000, seed: 13)
            let untrusting = try FTPTransport(configuration: .init(requiresTLS: true))
            let run = try await fixture.download(fixture.server.url("tls.bin"), transport: untrusting)
            let error = try #require(run.error)
            #expect(error.code == .tlsFailure, "\(error)")
            #expect(!error.isRetryable)
            // Without requiresTLS the login goes in the clear, and this server refuses it.
            let plain = try await fixture.download(fixture.server.url("tls.bin"), transport: try FTPTransport())
            #expect(plain.file == nil)
            #expect(plain.error?.code == .authenticationFailed, "\(String(describing: plain.error))")
        }
    }
}
