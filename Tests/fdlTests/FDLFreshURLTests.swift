import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get --fresh-url-timeout` waits for `fdl url ID NEWURL` from another terminal when a signed
/// link expires, over the run's socket (the agent's API), and completes the file byte-exact.
@Suite("fdl url: a fresh link for a running fdl get", .serialized, .timeLimit(.minutes(3)))
struct FDLFreshURLTests {
    @Test func aRunningGetTakesAFreshLinkFromFdlURLAndCompletes() async throws {
        let out = try TemporaryDirectory("fdl-fresh-url-out")
        defer { out.remove() }
        try await FaultServer.withSignedFile(seed: 92) { fault, data in
            // The 1-second link expires on the way; the server refuses it (403).
            let fdl = try FDLProcess(["get", try await fault.sign("signed.bin", ttl: 1, "rate=200000").absoluteString,
                                      "-d", out.path, "--json", "--fresh-url-timeout", "120"])
            try await fdl.waitForOutput(containing: #""type":"needsFreshURL""#)
            let asked = try #require(fdl.jsonLines.first { $0["type"] as? String == "needsFreshURL" })
            let id = try #require(asked["id"] as? String)
            #expect(asked["statusCode"] as? Int == 403)
            let fresh = try await fault.sign("signed.bin", ttl: 120, "rate=200000")
            let answer = try await FDLProcess.run(["url", id, fresh.absoluteString, "-d", out.path])
            #expect(answer.status == 0, "\(answer.stdout) \(answer.stderr)")
            let status = await fdl.exitStatus()
            #expect(status == 0, "stdout: \(fdl.stdout) stderr: \(fdl.stderr)")
            #expect(try Data(contentsOf: out.file("signed.bin")) == data)
            #expect(fdl.jsonLines.contains { $0["type"] as? String == "urlChanged" }, "\(fdl.stdout)")
        }
    }

    @Test func fdlURLWithNoRunningGetSaysSo() async throws {
        let out = try TemporaryDirectory("fdl-fresh-url-none")
        defer { out.remove() }
        let answer = try await FDLProcess.run(["url", "x", "http://127.0.0.1:9/f", "-d", out.path])
        #expect(answer.status == 74 && answer.stderr.contains("no fdl runs on"), "\(answer.stderr)")
    }
}
