import FileDownloadTestSupport
import Foundation
import Testing

/// Trusting a private CA and testing against a server fdl cannot verify, run as fdl processes
/// against nginx serving HTTPS with the tests' own CA (`TestCertificates`): `--cacert`, the
/// environment as curl reads it, and `-k` with its warning.
@Suite struct FDLTLSTrustTests {
    /// The variables that would choose a CA for fdl: removed, so the test process's own do not count.
    static let noCAVariables: [String: String?] = ["SSL_CERT_FILE": nil, "SSL_CERT_DIR": nil, "CURL_CA_BUNDLE": nil]

    /// Runs `body` with nginx serving `data` as `t.bin` over HTTPS signed by a fresh test CA.
    func withHTTPSServer(_ body: (NginxServer, TestCertificates, TemporaryDirectory, URL, Data) async throws -> Void) async throws {
        let certificates = try TemporaryDirectory()
        let root = try TemporaryDirectory()
        let out = try TemporaryDirectory()
        defer {
            certificates.remove()
            root.remove()
            out.remove()
        }
        let ca = try TestCertificates(in: certificates.url)
        let server = try NginxServer(root: root.url, certificates: ca)
        defer { server.stop() }
        let data = try server.serve("t.bin", sampleBytes(300_000, seed: 61))
        try await body(server, ca, out, server.fileURL("t.bin", https: true), data)
    }

    @Test func anUnknownCAFailsWithATLSMessageAndAHintNamingCacert() async throws {
        try await withHTTPSServer { _, _, out, url, _ in
            let result = try await FDLProcess.run(["get", url.absoluteString, "-d", out.path], environment: Self.noCAVariables)
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout.contains("t.bin: FAILED (tlsFailure)"), "\(result.stdout)")
            #expect(result.stdout.contains("TLS failed for"), "\(result.stdout)")
            #expect(result.stdout.contains("--cacert FILE"), "the hint names --cacert: \(result.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out.file("t.bin").path))
        }
    }

    @Test func cacertTrustsThePrivateCA() async throws {
        try await withHTTPSServer { _, ca, out, url, data in
            let result = try await FDLProcess.run(["get", url.absoluteString, "-d", out.path, "--cacert", ca.caCertificate.path],
                                                  environment: Self.noCAVariables)
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("t.bin")) == data)
            #expect(!result.stderr.contains("insecure"), "\(result.stderr)")
        }
    }

    @Test(arguments: ["SSL_CERT_FILE", "CURL_CA_BUNDLE"])
    func theEnvironmentsCAFileIsTrusted(variable: String) async throws {
        try await withHTTPSServer { _, ca, out, url, data in
            var environment = Self.noCAVariables
            environment[variable] = ca.caCertificate.path
            let result = try await FDLProcess.run(["get", url.absoluteString, "-d", out.path], environment: environment)
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("t.bin")) == data)
        }
    }

    @Test func cacertWinsOverTheEnvironment() async throws {
        try await withHTTPSServer { _, ca, out, url, _ in
            // CURL_CA_BUNDLE names the right CA, --cacert a file without it (the server's own
            // certificate is no CA): --cacert is the one used, as in curl.
            var environment = Self.noCAVariables
            environment["CURL_CA_BUNDLE"] = ca.caCertificate.path
            let result = try await FDLProcess.run(["get", url.absoluteString, "-d", out.path,
                                                   "--cacert", ca.clientCertificate.path], environment: environment)
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout.contains("FAILED (tlsFailure)"), "\(result.stdout)")
        }
    }

    @Test func insecureDownloadsAndWarnsOnEveryRun() async throws {
        try await withHTTPSServer { server, _, out, url, data in
            let result = try await FDLProcess.run(["get", url.absoluteString, "-d", out.path, "-k"], environment: Self.noCAVariables)
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("t.bin")) == data)
            #expect(result.stderr.contains("warning: -k/--insecure: HTTPS and FTPS servers are not verified"), "\(result.stderr)")
            // A second run (the file is complete) warns again.
            let again = try await FDLProcess.run(["get", url.absoluteString, "-d", out.path, "--insecure"],
                                                 environment: Self.noCAVariables)
            #expect(again.status == 0, "stdout: \(again.stdout) stderr: \(again.stderr)")
            #expect(again.stderr.contains("warning: -k/--insecure"), "\(again.stderr)")
        }
    }

    @Test func cacertMustBeAFile() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try await FDLProcess.run(["get", "https://127.0.0.1:9/x", "-d", dir.path, "--cacert", dir.path("missing.pem")])
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--cacert"), "\(result.stderr)")
    }
}
