import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The messages a person sees for a typo, an SSH login without a usable key, and Ctrl-C.
@Suite struct FDLMessageTests {
    @Test func aMistypedOptionIsNamedNotItsValueTakenForAURL() async throws {
        let result = try await FDLProcess.getInEmptyDirectory(["--limit-rte", "1M"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("unknown option '--limit-rte'; did you mean '--limit-rate'?"), "\(result.stderr)")
        #expect(!result.stderr.contains("is not an absolute URL"))
        #expect(result.created.isEmpty)
    }

    @Test func anSSHLoginWithNoUsableKeySaysIdentity() async throws {
        try await FDLSFTPTests().withServer { server, out in
            let path = try server.serve("k.bin", sampleBytes(10_000, seed: 70))
            let stranger = out.file("stranger_key").path
            try await SSHServer.keygen(stranger)
            let result = try await FDLProcess.run(["get", server.address(path), "-d", out.path, "--identity", stranger,
                                                   "--known-hosts", server.knownHosts],
                                                  environment: ["HOME": out.path, "SSH_AUTH_SOCK": out.path + "/no-agent"])
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout.contains("k.bin: FAILED (authenticationFailed)"), "\(result.stdout)")
            #expect(result.stdout.contains("pass --identity FILE"), "\(result.stdout)")
        }
    }

    @Test(arguments: [(SIGINT, "stopped by Ctrl-C, run the same command to continue"),
                      (SIGTERM, "stopped by SIGTERM, run the same command to continue")])
    func aSignalSaysHowToContinue(signal: Int32, wording: String) async throws {
        try await NginxServer.withServer(slowRate: "50k") { server, out in
            try server.serve("slow/s.bin", sampleBytes(2_000_000, seed: 71))
            let fdl = try FDLProcess(["get", server.url("slow/s.bin"), "-d", out.path])
            try await fdl.waitForOutput(containing: "s.bin: downloading")
            fdl.send(signal)
            #expect(await fdl.exitStatus() == 130, "stderr: \(fdl.stderr)")
            #expect(fdl.stdout.contains(wording), "\(fdl.stdout)")
        }
    }
}
