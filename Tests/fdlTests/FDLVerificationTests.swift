import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl` says "verified" only of a file something confirmed: the SHA-256 given, or the length the
/// server announced. A body the server ends by closing the connection, without a length, is
/// saved (exit 0) and reported as not confirmed, in the log and in `--json`.
@Suite struct FDLVerificationTests {
    @Test func aBodyWithoutALengthIsCompletedButNotVerified() async throws {
        let root = try TemporaryDirectory("fault-root")
        let out = try TemporaryDirectory("fdl-out")
        let server = try FaultServer(root: root.url)
        defer {
            server.stop()
            root.remove()
            out.remove()
        }
        let data = sampleBytes(120_000, seed: 61)
        try data.write(to: root.file("open.bin"))
        try data.write(to: root.file("sized.bin"))
        let plain = try await FDLProcess.run(["get", server.address("open.bin", "noLength=1"), server.address("sized.bin"),
                                              "-d", out.path])
        #expect(plain.status == 0, "stdout: \(plain.stdout) stderr: \(plain.stderr)")
        #expect(try Data(contentsOf: out.file("open.bin")) == data)
        #expect(plain.stdout.contains("open.bin: done -> \(out.file("open.bin").path) (completed; length not confirmed by the server)"),
                "\(plain.stdout)")
        #expect(plain.stdout.contains("sized.bin: done -> \(out.file("sized.bin").path) (completed and verified: the length the server announced)"),
                "\(plain.stdout)")
        #expect(plain.stdout.contains("2 completed (1 with a length not confirmed by the server)"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("every download completed and verified"), "\(plain.stdout)")

        try FileManager.default.removeItem(at: out.url)
        let json = try FDLProcess(["get", server.address("open.bin", "noLength=1&x=sha"), server.address("open.bin", "noLength=1"),
                                   "--name", "checked.bin", "--name", "open.bin", "--sha256", sha256Hex(data),
                                   "-d", out.path, "--json"])
        #expect(await json.exitStatus() == 0, "stderr: \(json.stderr)")
        let completed = json.jsonLines.filter { $0["type"] as? String == "completed" }
        let verified = Dictionary(uniqueKeysWithValues: completed.compactMap { line in
            (line["id"] as? String).flatMap { id in (line["verified"] as? Bool).map { (id, $0) } }
        })
        #expect(verified == ["open.bin": false, "checked.bin": true], "\(json.stdout)")
        #expect(json.jsonLines.last?["unverified"] as? Int == 1, "\(json.stdout)")
        #expect(json.jsonLines.last?["exitCode"] as? Int == 0)
    }
}
