import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The lock of an `fdl` run covers its download directory, not only its state directory.
@Suite struct FDLDirectoryLockTests {
    @Test func twoRunsOnOneDirectoryWithDifferentStateDirectoriesDoNotBothRun() async throws {
        let server = try await NginxServer(slowRate: "100k")
        let out = try TemporaryDirectory("fdl-lock-out")
        let states = try TemporaryDirectory("fdl-lock-states")
        defer {
            server.stop()
            out.remove()
            states.remove()
        }
        // 12 MB at 100 KB/s: still running when the SIGINT comes, however busy the machine.
        try server.serve("slow/held.bin", sampleBytes(12_000_000, seed: 31))
        try server.serve("other.bin", sampleBytes(20_000, seed: 32))
        try server.serve("third.bin", sampleBytes(20_000, seed: 33))
        let earlier = try await FDLProcess.run(["get", server.url("other.bin"), "-d", out.path, "--state", states.path("two")])
        #expect(earlier.status == 0, "stderr: \(earlier.stderr)")

        let first = try FDLProcess(["get", server.url("slow/held.bin"), "-d", out.path, "--state", states.path("one"), "--json"])
        try await first.waitForOutput(containing: #""type":"progress""#)
        let second = try await FDLProcess.run(["get", server.url("third.bin"), "-d", out.path, "--state", states.path("two")])
        #expect(second.status == 74, "stdout: \(second.stdout) stderr: \(second.stderr)")
        #expect(second.stderr.contains("another fdl is working in \(out.path)"), "stderr: \(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path("third.bin")))
        let pause = try await FDLProcess.run(["pause", "other.bin", "-d", out.path, "--state", states.path("two")])
        #expect(pause.status == 74, "a control command with the other state directory is refused too: \(pause.stderr)")

        first.send(SIGINT)
        #expect(await first.exitStatus() == 130, "stderr: \(first.stderr)")
        let after = try await FDLProcess.run(["get", server.url("third.bin"), "-d", out.path, "--state", states.path("two")])
        #expect(after.status == 0, "the kernel released the lock when the first fdl ended: \(after.stderr)")
    }
}
