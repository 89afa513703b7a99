import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What ends `fdl get`: a paused download keeps it running, so `fdl resume` from another
/// terminal continues the download in it.
@Suite struct FDLRunLifetimeTests {
    @Test func pausingOneDownloadDoesNotEndTheRunAndResumingItFinishesIt() async throws {
        try await NginxServer.withServer(slowRate: "200k") { server, out in
            let a = try server.serve("slow/a.bin", sampleBytes(30_000_000, seed: 21))
            let b = try server.serve("slow/b.bin", sampleBytes(600_000, seed: 22))
            let running = try FDLProcess(["get", server.url("slow/a.bin"), server.url("slow/b.bin"), "-d", out.path, "-x", "1"])
            try await running.waitForOutput(containing: "a.bin: downloading")
            let pause = try await FDLProcess.run(["pause", "a.bin", "-d", out.path])
            #expect(pause.status == 0, "stdout: \(pause.stdout) stderr: \(pause.stderr)")
            #expect(pause.stdout.contains("asked the running fdl"))
            try await running.waitForOutput(containing: "a.bin: paused at")
            try await running.waitForOutput(containing: "b.bin: done ->")
            #expect(running.stdout.contains("a.bin: `fdl resume a.bin -d \(out.path)` from another terminal continues it; "
                                            + "this run waits for it"))

            // b is done and a is paused: the run still holds DIR, so resume hands a to it.
            let resume = try await FDLProcess.run(["resume", "a.bin", "-d", out.path])
            #expect(resume.status == 0, "stdout: \(resume.stdout) stderr: \(resume.stderr)")
            #expect(resume.stdout.contains("asked the running fdl"), "\(resume.stdout)")
            #expect(await running.exitStatus() == 0, "stdout: \(running.stdout) stderr: \(running.stderr)")
            #expect(try Data(contentsOf: out.file("a.bin")) == a)
            #expect(try Data(contentsOf: out.file("b.bin")) == b)
            #expect(running.stdout.contains("a.bin: resuming"))
            #expect(running.stdout.contains("2 completed, 0 failed, 0 stopped (exit 0"))
        }
    }

    @Test func cancellingThePausedDownloadEndsTheRun() async throws {
        try await NginxServer.withServer(slowRate: "100k") { server, out in
            try server.serve("slow/c.bin", sampleBytes(30_000_000, seed: 23))
            let running = try FDLProcess(["get", server.url("slow/c.bin"), "-d", out.path, "-x", "1"])
            try await running.waitForOutput(containing: "c.bin: downloading")
            #expect(try await FDLProcess.run(["pause", "c.bin", "-d", out.path]).status == 0)
            try await running.waitForOutput(containing: "this run waits for it")
            let cancel = try await FDLProcess.run(["cancel", "c.bin", "-d", out.path])
            #expect(cancel.status == 0, "stdout: \(cancel.stdout) stderr: \(cancel.stderr)")
            #expect(await running.exitStatus() == 3, "stdout: \(running.stdout)")
            #expect(running.stdout.contains("0 completed, 0 failed, 1 stopped (exit 3"))
        }
    }
}
