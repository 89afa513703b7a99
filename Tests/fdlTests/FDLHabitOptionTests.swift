import Crypto
import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The options people type from curl, wget and aria2c habit, run as a process against nginx:
/// each shows its effect in nginx's access log, fdl's output or the files, never in a timing.
@Suite struct FDLHabitOptionTests {
    @Test func userAgentIsSent() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("ua.bin", sampleBytes(10_000, seed: 40))
            let result = try await FDLProcess.run(["get", server.url("ua.bin"), "-d", out.path, "-U", "fdl-test-agent/9 (x)"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(server.accessLog.contains { $0.hasPrefix("200 ") && $0.contains("ua=\"fdl-test-agent/9 (x)\"") },
                    "\(server.accessLog)")
        }
    }

    @Test func verboseLogsTheOptionsTheLibraryGotAndNoSecret() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("private/v.bin", sampleBytes(300_000, seed: 41))
            let result = try await FDLProcess.run([
                "get", server.url("private/v.bin"), "-d", out.path, "-v", "--limit-rate", "1.5M", "--connect-timeout", "5",
                "--max-time", "600", "--retry-wait", "0.5", "-c", "-U", "agent-v",
                "--user", "\(NginxServer.basicUser):\(NginxServer.basicPassword)", "--header-secret", "X-Api-Key: key-77ab1",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("v.bin")) == data)
            #expect(result.stderr.contains("fdl: [debug] FileDownload: download 'v.bin': attempt 1 starts at byte 0"), "\(result.stderr)")
            #expect(result.stderr.contains("rate limit 1572864 bytes/s"), "\(result.stderr)")
            #expect(result.stderr.contains("connect timeout 5.0 seconds"), "\(result.stderr)")
            #expect(result.stderr.contains("max time 600.0 seconds"), "\(result.stderr)")
            #expect(result.stderr.contains("user agent agent-v"), "\(result.stderr)")
            #expect(result.stderr.contains("with the password of \(NginxServer.basicUser) from --user"), "\(result.stderr)")
            for secret in [NginxServer.basicPassword, "key-77ab1"] {
                #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "\(secret) was printed")
            }
            #expect(server.accessLog.contains { $0.hasPrefix("200 ") && $0.contains("user=\"\(NginxServer.basicUser)\"") })
        }
    }

    @Test func maxTimeEndsADownloadThatTakesLonger() async throws {
        try await NginxServer.withServer(slowRate: "40k") { server, out in
            try server.serve("slow/long.bin", sampleBytes(4_000_000, seed: 42))
            let result = try await FDLProcess.run(["get", server.url("slow/long.bin"), "-d", out.path, "--max-time", "0.5"])
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout.contains("long.bin: FAILED (resourceTimedOut)"), "\(result.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out.file("long.bin").path))
        }
    }

    @Test func retryWaitIsTheFirstBackoff() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fdl = try FDLProcess(["get", "http://127.0.0.1:9/x", "-d", dir.path, "--json", "--retry", "1", "--retry-wait", "0.25"])
        #expect(await fdl.exitStatus() == 1, "stderr: \(fdl.stderr)")
        let waits = fdl.jsonLines.filter { $0["type"] as? String == "interrupted" }.compactMap { $0["retryInSeconds"] as? Double }
        #expect(waits.count == 1 && (0.2...0.3).contains(waits[0]), "0.25 s ± 20 %: \(fdl.stdout)")
    }

    @Test func quietPrintsNothingOnSuccessAndOnlyTheFailureOtherwise() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("q.bin", sampleBytes(50_000, seed: 43))
            let ok = try await FDLProcess.run(["get", server.url("q.bin"), "-d", out.path, "-q"])
            #expect(ok.status == 0)
            #expect(ok.stdout.isEmpty && ok.stderr.isEmpty, "stdout: \(ok.stdout) stderr: \(ok.stderr)")
            #expect(FileManager.default.fileExists(atPath: out.file("q.bin").path))
            let missing = try await FDLProcess.run(["get", server.url("missing.bin"), "-d", out.path, "--quiet"])
            #expect(missing.status == 1)
            #expect(missing.stdout.isEmpty, "\(missing.stdout)")
            #expect(missing.stderr.contains("missing.bin: FAILED (notFound)"), "\(missing.stderr)")
        }
    }

    @Test func versionNamesFdlAndItsLibraries() async throws {
        let result = try await FDLProcess.run(["--version"])
        #expect(result.status == 0)
        for part in ["fdl 1.0", "libcurl/", "libssh2/", "SQLite/3."] {
            #expect(result.stdout.contains(part), "\(result.stdout)")
        }
    }

    @Test func dryRunPlansAndTouchesNothing() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("d1.bin", sampleBytes(20_000, seed: 44))
            try server.serve("d2.bin", sampleBytes(20_000, seed: 45))
            // A directory that does not exist yet stays so.
            let fresh = out.file("new").path
            let planned = try await FDLProcess.run(["get", server.url("d1.bin"), "-d", fresh, "--dry-run"])
            #expect(planned.status == 0, "stderr: \(planned.stderr)")
            #expect(planned.stdout.contains("d1.bin: download \(server.url("d1.bin")) -> \(fresh)/d1.bin"), "\(planned.stdout)")
            #expect(planned.stdout.contains("dry run: 1 to download, 0 to continue, 0 already complete; nothing was changed"))
            #expect(!FileManager.default.fileExists(atPath: fresh))
            #expect(server.accessLog.isEmpty, "nothing was fetched: \(server.accessLog)")

            // With a state: it reads it, and leaves every file as it was.
            let done = try await FDLProcess.run(["get", server.url("d1.bin"), "-d", out.path])
            #expect(done.status == 0)
            let before = try Self.snapshot(out.path)
            let requests = server.accessLog.count
            let again = try await FDLProcess.run(["get", server.url("d1.bin"), server.url("d2.bin"), "-d", out.path, "--dry-run"])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(again.stdout.contains("d1.bin: already complete at \(out.path)/d1.bin"), "\(again.stdout)")
            #expect(again.stdout.contains("d2.bin: download"), "\(again.stdout)")
            #expect(try Self.snapshot(out.path) == before, "the dry run changed nothing")
            #expect(server.accessLog.count == requests)
        }
    }

    /// Every file under `path` with its size and modification time.
    static func snapshot(_ path: String) throws -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + name)
            result[name] = "\(attributes[.size] ?? "-") \(attributes[.modificationDate] ?? "-")"
        }
        return result
    }
}
