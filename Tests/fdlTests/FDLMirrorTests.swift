import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get URL --mirror URL...`: the other URLs of the same file are tried in turn when one
/// fails, and bytes are continued from another URL only under the same validator and size.
@Suite struct FDLMirrorTests {
    @Test func aURLThatIsNotFoundOrRefusesIsFollowedByTheNextMirror() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("m/file.bin", sampleBytes(150_000, seed: 81))
            let refusing = try RefusingPort()
            let result = try await FDLProcess.run([
                "get", server.url("missing/file.bin"), "--mirror", "http://127.0.0.1:\(refusing.port)/file.bin",
                "--mirror", server.url("m/file.bin"), "-d", out.path, "--retry", "0",
            ])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("file.bin")) == data)
            #expect(server.accessLog.contains { $0.hasPrefix("404") && $0.contains("GET /missing/file.bin") })
        }
    }

    @Test func secretHeaderFieldsAndUserGoOnlyToTheFirstURLsOrigin() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("private/s.bin", sampleBytes(20_000, seed: 85))
            let secrets = ["--header-secret", "X-Api-Key: k-3e8a-secret", "--user", "\(NginxServer.basicUser):\(NginxServer.basicPassword)",
                           "--retry", "0"]
            // Same origin (127.0.0.1:port): the mirror gets both.
            let same = try await FDLProcess.run(["get", server.url("missing/s.bin"), "--mirror", server.url("private/s.bin"),
                                                 "-d", out.path + "/same"] + secrets)
            #expect(same.status == 0, "stdout: \(same.stdout) stderr: \(same.stderr)")
            #expect(try Data(contentsOf: out.file("same/s.bin")) == data)
            #expect(server.accessLog.contains { $0.hasPrefix("200 ") && $0.contains("api_key=\"k-3e8a-secret\"") && $0.contains("user=\"\(NginxServer.basicUser)\"") },
                    "\(server.accessLog)")

            // Another origin (localhost: the same server under another name): neither.
            let before = server.accessLog.count
            let other = server.url("private/s.bin").replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let result = try await FDLProcess.run(["get", server.url("missing/s.bin"), "--mirror", other,
                                                   "-d", out.path + "/other"] + secrets)
            #expect(result.status == 1, "the mirror asks for a password fdl does not give it: \(result.stdout)")
            let lines = server.accessLog.dropFirst(before)
            #expect(lines.contains { $0.hasPrefix("404 ") && $0.contains("api_key=\"k-3e8a-secret\"") }, "the first URL gets it: \(lines)")
            #expect(lines.contains { $0.hasPrefix("401 ") && $0.contains("private/s.bin") }, "\(lines)")
            #expect(!lines.contains { $0.contains("private/s.bin") && ($0.contains("k-3e8a-secret") || $0.contains("user=\"\(NginxServer.basicUser)\"")) },
                    "\(lines)")
        }
    }

    @Test func whenEveryURLFailsTheDownloadFailsWithTheLastError() async throws {
        try await NginxServer.withServer { server, out in
            let result = try await FDLProcess.run([
                "get", server.url("a/gone.bin"), "--mirror", server.url("b/gone.bin"), "-d", out.path, "--retry", "0",
            ])
            #expect(result.status == 1, "stdout: \(result.stdout)")
            #expect(server.accessLog.filter { $0.contains("gone.bin") }.count == 2, "each URL asked once: \(server.accessLog)")
            #expect(!FileManager.default.fileExists(atPath: out.file("gone.bin").path))
        }
    }

    @Test func aMirrorWithOtherContentStartsTheFileOverAndNeverSplices() async throws {
        try await NginxServer.withServer { server, out in
            let root = try TemporaryDirectory("fdl-mirror-fault")
            defer { root.remove() }
            let first = sampleBytes(300_000, seed: 82)
            try first.write(to: root.file("file.bin"))
            let fault = try FaultServer(root: root.url)
            defer { fault.stop() }
            let second = try server.serve("file.bin", sampleBytes(300_000, seed: 83))
            // The first URL breaks after 100,000 bytes; the mirror holds another file (another ETag).
            let fdl = try FDLProcess(["get", fault.address("file.bin", "drop=100000"), "--mirror", server.url("file.bin"),
                                      "-d", out.path, "--json"])
            let status = await fdl.exitStatus()
            #expect(status == 0, "stdout: \(fdl.stdout) stderr: \(fdl.stderr)")
            #expect(try Data(contentsOf: out.file("file.bin")) == second, "the mirror's file, whole: nothing spliced")
            let restarted = fdl.jsonLines.filter { $0["type"] as? String == "restarted" }
            #expect(restarted.first?["reason"] as? String == "validatorChanged", "events: \(fdl.stdout)")
            #expect(server.accessLog.contains { $0.contains("range=\"bytes=100000-\"") }, "the mirror was asked to continue first")
        }
    }

    @Test func aMirrorOfTheSameFileContinuesTheBytes() async throws {
        let root = try TemporaryDirectory("fdl-mirror-same")
        defer { root.remove() }
        let data = sampleBytes(300_000, seed: 84)
        try data.write(to: root.file("file.bin"))
        let fault = try FaultServer(root: root.url)
        defer { fault.stop() }
        let out = try TemporaryDirectory("fdl-mirror-same-out")
        defer { out.remove() }
        let fdl = try FDLProcess(["get", fault.address("file.bin", "drop=100000"), "--mirror", fault.address("file.bin", "mirror=1"),
                                  "-d", out.path, "--json"])
        let status = await fdl.exitStatus()
        #expect(status == 0, "stdout: \(fdl.stdout) stderr: \(fdl.stderr)")
        #expect(try Data(contentsOf: out.file("file.bin")) == data)
        #expect(!fdl.jsonLines.contains { $0["type"] as? String == "restarted" }, "events: \(fdl.stdout)")
    }

    @Test func mirrorNeedsOneURL() async throws {
        let out = try TemporaryDirectory("fdl-mirror-usage")
        defer { out.remove() }
        let result = try await FDLProcess.run(["get", "http://127.0.0.1:9/a", "http://127.0.0.1:9/b", "--mirror",
                                               "http://127.0.0.1:9/c", "-d", out.path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--mirror"), "stderr: \(result.stderr)")
        // ftp:// is a transport now; gopher:// is not.
        let gopher = try await FDLProcess.run(["get", "http://127.0.0.1:9/a", "--mirror", "gopher://127.0.0.1/a", "-d", out.path])
        #expect(gopher.status == 64, "a mirror fdl cannot fetch is refused before anything starts: \(gopher.stderr)")
        #expect(gopher.stderr.contains("gopher://127.0.0.1/a"), "stderr: \(gopher.stderr)")
    }
}
