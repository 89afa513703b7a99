import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get -x 4` against a server that mixes versions under one ETag restarts on one connection
/// and saves one version; a digest the server announces is checked and named as what verified
/// the file; a wrong one fails like a wrong `--sha256`. Against the fault server, as a process.
@Suite struct FDLSegmentAgreementTests {
    /// Runs `body` with a fault server over a fresh root and an output directory.
    static func withFault(_ body: (FaultServer, TemporaryDirectory, TemporaryDirectory) async throws -> Void) async throws {
        try await FaultServer.withRootAndOutput(body)
    }

    @Test func rangesOfTwoVersionsUnderOneETagRestartOnOneConnection() async throws {
        try await Self.withFault { server, root, out in
            // 20 MB: above the 16 MiB threshold. The first request gets big.bin, every later one
            // new.bin, all under big.bin's ETag.
            try sampleBytes(20_000_000, seed: 71).write(to: root.file("big.bin"))
            let newer = sampleBytes(20_000_000, seed: 72)
            try newer.write(to: root.file("new.bin"))
            let fdl = try FDLProcess(["get", server.address("big.bin", "versions=big.bin,new.bin&sameEtag=1"),
                                      "-x", "4", "-d", out.path, "--json"])
            #expect(await fdl.exitStatus() == 0, "stdout: \(fdl.stdout) stderr: \(fdl.stderr)")
            #expect(try Data(contentsOf: out.file("big.bin")) == newer)
            let restarted = fdl.jsonLines.filter { $0["type"] as? String == "restarted" }
            #expect(restarted.map { $0["reason"] as? String } == ["segmentsDisagree"], "\(fdl.stdout)")
        }
    }

    @Test func aDigestTheServerAnnouncesVerifiesTheFile() async throws {
        try await Self.withFault { server, root, out in
            let data = sampleBytes(300_000, seed: 73)
            try data.write(to: root.file("d.bin"))
            try data.write(to: root.file("j.bin"))
            let plain = try await FDLProcess.run(["get", server.address("d.bin", "digest=repr"), "-d", out.path])
            #expect(plain.status == 0, "stdout: \(plain.stdout) stderr: \(plain.stderr)")
            #expect(plain.stdout.contains("d.bin: done -> \(out.file("d.bin").path) (completed and verified: the SHA-256 digest the server announced)"),
                    "\(plain.stdout)")
            let json = try FDLProcess(["get", server.address("j.bin", "digest=legacy"), "-d", out.path, "--json"])
            #expect(await json.exitStatus() == 0, "stderr: \(json.stderr)")
            let completed = try #require(json.jsonLines.first { $0["type"] as? String == "completed" })
            #expect(completed["verified"] as? Bool == true && completed["verifiedBy"] as? String == "serverDigest", "\(completed)")
            #expect(try Data(contentsOf: out.file("j.bin")) == data)
        }
    }

    @Test func aWrongDigestFailsLikeAWrongSHA256() async throws {
        try await Self.withFault { server, root, out in
            try sampleBytes(300_000, seed: 74).write(to: root.file("w.bin"))
            let result = try await FDLProcess.run(["get", server.address("w.bin", "digest=wrong"), "-d", out.path, "--retry", "0"])
            #expect(result.status == 65, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout.contains("w.bin: FAILED (validationFailed)"), "\(result.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out.file("w.bin").path))
        }
    }
}
