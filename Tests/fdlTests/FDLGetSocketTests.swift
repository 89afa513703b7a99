import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A foreground `fdl get` serves the agent's API on `STATE/fdl.sock`: `fdl pause|resume|cancel`
/// and `fdl watch` from another terminal reach it there, and only its own user may.
@Suite struct FDLGetSocketTests {
    @Test("pause, resume and watch reach a running get over its socket (0600 in a 0700 directory); no control/ directory")
    func controlOverTheSocket() async throws {
        // 12 MB at 100 KB/s: two minutes before the pause, on the busiest machine (3 MB completed
        // first in a full CI run); below the segment threshold, so one connection. After the
        // resume (a Range request) it goes at full speed.
        try await NginxServer.withServer(slowRate: "100k") { server, out in
            let a = try server.serve("slow/a.bin", sampleBytes(12_000_000, seed: 41))
            let running = try FDLProcess(["get", server.url("slow/a.bin"), "-d", out.path])
            try await running.waitForOutput(containing: "a.bin: downloading")
            let socket = out.path(".fdl/fdl.sock")
            var info = stat()
            #expect(stat(socket, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && info.st_mode & 0o777 == 0o600)
            #expect(stat(out.path(".fdl"), &info) == 0 && info.st_mode & 0o777 == 0o700)

            let pause = try await FDLProcess.run(["pause", "a.bin", "-d", out.path])
            #expect(pause.status == 0, "stdout: \(pause.stdout) stderr: \(pause.stderr)")
            #expect(pause.stdout.contains("a.bin: asked the running fdl (pid \(running.process.processIdentifier)) to pause it; it is paused now"),
                    "\(pause.stdout)")
            try await running.waitForOutput(containing: "this run waits for it")
            // An id that is not part of the run is answered by the run.
            let unknown = try await FDLProcess.run(["pause", "other.bin", "-d", out.path])
            #expect(unknown.status == 64 && unknown.stderr.contains("has no download 'other.bin' in its run"), "\(unknown.stderr)")

            let watch = try FDLProcess(["watch", "a.bin", "-d", out.path])
            try await watch.waitForOutput(containing: "watching a.bin")
            let resume = try await FDLProcess.run(["resume", "a.bin", "-d", out.path])
            #expect(resume.status == 0 && resume.stdout.contains("asked the running fdl"), "\(resume.stdout) \(resume.stderr)")
            #expect(await running.exitStatus() == 0, "stdout: \(running.stdout) stderr: \(running.stderr)")
            #expect(await watch.exitStatus() == 0, "stdout: \(watch.stdout) stderr: \(watch.stderr)")
            #expect(watch.stdout.contains("a.bin: done -> \(out.path("a.bin"))"), "\(watch.stdout)")
            #expect(try Data(contentsOf: out.file("a.bin")) == a)
            #expect(!FileManager.default.fileExists(atPath: out.path(".fdl/control")), "the control-request directory is gone")
            #expect(!FileManager.default.fileExists(atPath: socket), "the socket is removed when the run ends")

            // With no run, watch says so.
            let idle = try await FDLProcess.run(["watch", "-d", out.path])
            #expect(idle.status == 74 && idle.stderr.contains("no fdl get runs on"), "\(idle.stderr)")
        }
    }

    @Test("pause, resume and cancel reach downloads of a running get whose names have a space, an accent, ?, #, % or +")
    func escapedIDsOverTheSocket() async throws {
        let names = ["with space", "accentué", "what?", "hash#tag", "100%", "a+b"]
        let out = try TemporaryDirectory("escaped")
        defer { out.remove() }
        // A port that refuses connections: each download is retried (1 s, 2 s, 4 s, ... apart)
        // and stays unfinished for as long as the test needs.
        let running = try FDLProcess(["get", "-j", String(names.count), "-d", out.path]
                                     + names.indices.flatMap { ["http://127.0.0.1:9/e\($0).bin", "--name", names[$0]] })
        for name in names { try await running.waitForOutput(containing: "\(name): downloading") }
        for name in names {
            let pause = try await FDLProcess.run(["pause", name, "-d", out.path])
            #expect(pause.status == 0 && pause.stdout.contains("\(name): asked the running fdl"), "\(name): \(pause.stdout) \(pause.stderr)")
            let resume = try await FDLProcess.run(["resume", name, "-d", out.path])
            #expect(resume.status == 0, "\(name): \(resume.stderr)")
            let cancel = try await FDLProcess.run(["cancel", name, "-d", out.path])
            #expect(cancel.status == 0 && cancel.stdout.contains("it is cancelled now"), "\(name): \(cancel.stdout) \(cancel.stderr)")
        }
        #expect(await running.exitStatus() == 3, "stdout: \(running.stdout) stderr: \(running.stderr)")
        for name in names {
            #expect(running.stdout.contains("\(name): paused") && running.stdout.contains("\(name): cancelled"), "\(running.stdout)")
        }
    }

    @Test("another user (nobody) reaching the socket of a running get is refused with 403")
    func otherUserRefused() async throws {
        try await NginxServer.withServer(slowRate: "100k") { server, out in
            try server.serve("slow/c.bin", sampleBytes(3_000_000, seed: 42))
            let running = try FDLProcess(["get", server.url("slow/c.bin"), "-d", out.path])
            try await running.waitForOutput(containing: "c.bin: downloading")
            // Let `nobody` reach the socket for this test only, so the run's own check answers.
            #expect(chmod(out.path, 0o711) == 0 && chmod(out.path(".fdl"), 0o711) == 0
                    && chmod(out.path(".fdl/fdl.sock"), 0o666) == 0)
            let (status, stdout, stderr) = try await CommandRun.run(
                ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", try FDLProcess.executable,
                 "pause", "c.bin", "-d", out.path])
            #expect(status == 74, "stdout: \(stdout) stderr: \(stderr)")
            #expect(stderr.contains("serves only its own user") && stderr.contains("65534"), "\(stderr)")
            #expect(running.stderr.contains("refused a request from uid 65534"), "\(running.stderr)")
            #expect(!running.stdout.contains("c.bin: paused"))
            let cancel = try await FDLProcess.run(["cancel", "c.bin", "-d", out.path])
            #expect(cancel.status == 0, "\(cancel.stderr)")
            #expect(await running.exitStatus() == 3, "stdout: \(running.stdout)")
        }
    }
}
