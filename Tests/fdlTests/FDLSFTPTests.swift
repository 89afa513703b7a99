import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get sftp://...` run as a process against OpenSSH's sshd on 127.0.0.1: host keys are
/// verified, the errors say what to do, and `--accept-new-host-keys` trusts a first-seen host only.
@Suite struct FDLSFTPTests {
    func withServer(_ body: (SSHServer, TemporaryDirectory) async throws -> Void) async throws {
        let server = try SSHServer()
        let out = try TemporaryDirectory("fdl-sftp-out")
        defer {
            server.stop()
            out.remove()
        }
        try await body(server, out)
    }

    @Test func aKnownHostAndAnIdentityFileDownloadTheFile() async throws {
        try await withServer { server, out in
            let data = sampleBytes(700_000, seed: 31)
            let path = try server.serve("remote.bin", data)
            let result = try await FDLProcess.run(["get", server.address(path), "-d", out.path, "--identity", server.clientKey,
                                                   "--known-hosts", server.knownHosts])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("remote.bin")) == data)
        }
    }

    @Test func anUnknownHostIsRefusedUnlessAcceptNewHostKeysIsGiven() async throws {
        try await withServer { server, out in
            let path = try server.serve("u.bin", sampleBytes(20_000, seed: 32))
            let empty = out.file("empty_known_hosts").path
            try "".write(toFile: empty, atomically: true, encoding: .utf8)
            let arguments = ["get", server.address(path), "-d", out.path, "--identity", server.clientKey, "--known-hosts", empty]
            let refused = try await FDLProcess.run(arguments)
            #expect(refused.status == 1, "stdout: \(refused.stdout)")
            #expect(refused.stdout.contains("FAILED (hostKeyUnknown)"))
            #expect(refused.stdout.contains("--accept-new-host-keys"), "the hint says how to trust it")
            #expect(!FileManager.default.fileExists(atPath: out.file("u.bin").path))

            let accepted = try await FDLProcess.run(arguments + ["--accept-new-host-keys"])
            #expect(accepted.status == 0, "stdout: \(accepted.stdout)")
            #expect(try String(contentsOfFile: empty, encoding: .utf8).contains("[127.0.0.1]:\(server.port)"),
                    "the key was recorded")
        }
    }

    @Test func aChangedHostKeyIsRefusedEvenWithAcceptNewHostKeys() async throws {
        try await withServer { server, out in
            let path = try server.serve("c.bin", sampleBytes(20_000, seed: 33))
            let other = out.file("other_host_key").path
            try await SSHServer.keygen(other)
            let wrong = out.file("wrong_known_hosts").path
            try server.knownHostsLine(publicKey: other + ".pub").write(toFile: wrong, atomically: true, encoding: .utf8)
            let result = try await FDLProcess.run(["get", server.address(path), "-d", out.path, "--identity", server.clientKey,
                                                   "--known-hosts", wrong, "--accept-new-host-keys"])
            #expect(result.status == 1, "stdout: \(result.stdout)")
            #expect(result.stdout.contains("FAILED (hostKeyMismatch): host key for 127.0.0.1:\(server.port) changed (expected SHA256:"),
                    "stdout: \(result.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out.file("c.bin").path))
        }
    }
}
