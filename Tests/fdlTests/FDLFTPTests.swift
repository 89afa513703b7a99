import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get ftp://...` run as a process against vsftpd on 127.0.0.1: anonymous by default, a netrc
/// entry used before an anonymous login, a refused login said plainly.
@Suite struct FDLFTPTests {
    func withServer(_ body: (VsftpdServer, TemporaryDirectory) async throws -> Void) async throws {
        let server = try VsftpdServer()
        let out = try TemporaryDirectory("fdl-ftp-out")
        defer {
            server.stop()
            out.remove()
        }
        try await body(server, out)
    }

    @Test func anAnonymousDownloadIsByteExact() async throws {
        try await withServer { server, out in
            let data = try server.serve("remote.bin", sampleBytes(700_000, seed: 41))
            let result = try await FDLProcess.run(["get", server.url("remote.bin").absoluteString, "-d", out.path])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("remote.bin")) == data)
            #expect(server.commands.contains("USER anonymous"))
        }
    }

    @Test func aNetrcEntryForTheHostIsTheLogin() async throws {
        try await withServer { server, out in
            let data = try server.serve("n.bin", sampleBytes(50_000, seed: 42))
            let netrc = out.file("netrc").path
            try "machine 127.0.0.1 login ftp password tester@example.org\n".write(toFile: netrc, atomically: true, encoding: .utf8)
            _ = chmod(netrc, 0o600)
            let result = try await FDLProcess.run(["get", server.url("n.bin").absoluteString, "-d", out.path, "--netrc-file", netrc])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("n.bin")) == data)
            #expect(server.commands.contains("USER ftp"))
            #expect(!server.commands.contains("USER anonymous"))
        }
    }

    @Test func aRefusedLoginFailsOnceWithTheServersReply() async throws {
        try await withServer { server, out in
            try server.serve("secret.bin", sampleBytes(1000, seed: 43))
            let url = "ftp://alice:wrong-secret@127.0.0.1:\(server.port)/secret.bin"
            let result = try await FDLProcess.run(["get", url, "-d", out.path])
            #expect(result.status == 1, "stdout: \(result.stdout)")
            #expect(result.stdout.contains("FAILED (authenticationFailed)"), "\(result.stdout)")
            #expect(result.stdout.contains("refused the login of alice: 530"), "\(result.stdout)")
            #expect(!result.stdout.contains("wrong-secret") && !result.stderr.contains("wrong-secret"))
            #expect(server.commands.filter { $0 == "USER alice" }.count == 1, "not retried")
        }
    }

    @Test func aProxyInTheEnvironmentFailsInsteadOfGoingDirect() async throws {
        try await withServer { server, out in
            let data = try server.serve("p.bin", sampleBytes(20_000, seed: 44))
            let url = server.url("p.bin").absoluteString
            let proxied = try await FDLProcess.run(["get", url, "-d", out.path],
                                                   environment: ["all_proxy": "http://carol:hidden@127.0.0.1:9"])
            #expect(proxied.status == 1, "stdout: \(proxied.stdout) stderr: \(proxied.stderr)")
            #expect(proxied.stdout.contains("FTP through a proxy is not supported"), "\(proxied.stdout)")
            #expect(proxied.stdout.contains("no_proxy=127.0.0.1"), "\(proxied.stdout)")
            #expect(!proxied.stdout.contains("hidden") && !proxied.stderr.contains("hidden"))
            #expect(server.commands.isEmpty, "went direct: \(server.commands)")
            let bypassed = try await FDLProcess.run(["get", url, "-d", out.path],
                                                    environment: ["all_proxy": "http://127.0.0.1:9", "no_proxy": "127.0.0.1"])
            #expect(bypassed.status == 0, "stdout: \(bypassed.stdout) stderr: \(bypassed.stderr)")
            #expect(try Data(contentsOf: out.file("p.bin")) == data)
        }
    }

    @Test func dashDashProxyAppliesToFTPAndDashDashNoproxyBypassesIt() async throws {
        try await withServer { server, out in
            let data = try server.serve("q.bin", sampleBytes(20_000, seed: 45))
            let url = server.url("q.bin").absoluteString
            let proxied = try await FDLProcess.run(["get", url, "-d", out.path, "--proxy", "http://127.0.0.1:9"])
            #expect(proxied.status == 1, "stdout: \(proxied.stdout) stderr: \(proxied.stderr)")
            #expect(proxied.stdout.contains("FTP through a proxy is not supported"), "\(proxied.stdout)")
            let bypassed = try await FDLProcess.run(["get", url, "-d", out.path, "--proxy", "http://127.0.0.1:9",
                                                     "--noproxy", "127.0.0.1"])
            #expect(bypassed.status == 0, "stdout: \(bypassed.stdout) stderr: \(bypassed.stderr)")
            #expect(try Data(contentsOf: out.file("q.bin")) == data)
        }
    }

    @Test func dashDashFtpPortAndNoPassiveFtpDownloadFromAServerWithoutPassiveMode() async throws {
        let server = try VsftpdServer(passive: false)
        let out = try TemporaryDirectory("fdl-ftp-active")
        defer {
            server.stop()
            out.remove()
        }
        let data = try server.serve("a.bin", sampleBytes(300_000, seed: 46))
        let url = server.url("a.bin").absoluteString
        let passive = try await FDLProcess.run(["get", url, "-d", out.path, "--retry", "0"])
        #expect(passive.status == 1, "passive mode got data: \(passive.stdout)")
        #expect(!server.commands.contains { $0.hasPrefix("EPRT") || $0.hasPrefix("PORT") })
        for options in [["--ftp-port", "127.0.0.1"], ["--no-passive-ftp"]] {
            try? FileManager.default.removeItem(at: out.file("a.bin"))
            let active = try await FDLProcess.run(["get", url, "-d", out.path, "--allow-overwrite"] + options)
            #expect(active.status == 0, "\(options): stdout: \(active.stdout) stderr: \(active.stderr)")
            #expect(try Data(contentsOf: out.file("a.bin")) == data)
        }
        #expect(server.commands.filter { $0.hasPrefix("EPRT") || $0.hasPrefix("PORT") }.count == 2, "\(server.commands)")
    }

    @Test func dashDashSslReqdLogsInOverExplicitTLSVerifiedWithThePrivateCA() async throws {
        let certificates = try TemporaryDirectory("fdl-ftps-ca")
        defer { certificates.remove() }
        let ca = try TestCertificates(in: certificates.url)
        let server = try VsftpdServer(tls: .explicit(ca))
        let out = try TemporaryDirectory("fdl-ftp-tls")
        defer {
            server.stop()
            out.remove()
        }
        let data = try server.serve("t.bin", sampleBytes(400_000, seed: 47))
        let url = server.url("t.bin").absoluteString
        let plain = try await FDLProcess.run(["get", url, "-d", out.path, "--retry", "0"])
        #expect(plain.status == 1, "a server that requires TLS served plain FTP: \(plain.stdout)")
        #expect(!server.commands.contains("AUTH TLS"))
        let unverified = try await FDLProcess.run(["get", url, "-d", out.path, "--ssl-reqd", "--retry", "0"])
        #expect(unverified.status == 1, "the private CA was trusted without --cacert: \(unverified.stdout)")
        #expect(unverified.stdout.contains("tlsFailure"), "\(unverified.stdout)")
        let verified = try await FDLProcess.run(["get", url, "-d", out.path, "--ssl-reqd", "--cacert", ca.caCertificate.path])
        #expect(verified.status == 0, "stdout: \(verified.stdout) stderr: \(verified.stderr)")
        #expect(try Data(contentsOf: out.file("t.bin")) == data)
        #expect(server.commands.contains("AUTH TLS") && server.commands.contains("PROT P"), "\(server.commands)")
    }
}
