import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `fdl get` run as a process against a real nginx on 127.0.0.1.
@Suite struct FDLHTTPTests {
    /// Runs `body` with a fresh nginx and output directory, and stops both afterwards.
    func withServer(slowRate: String = "512k", _ body: (NginxServer, TemporaryDirectory) async throws -> Void) async throws {
        try await NginxServer.withServer(slowRate: slowRate, body)
    }

    @Test func withoutATerminalItLogsPlainLinesAndSavesEveryFile() async throws {
        try await withServer { server, out in
            let a = try server.serve("a.bin", sampleBytes(300_000, seed: 1))
            let b = try server.serve("dir/b.bin", sampleBytes(70_000, seed: 2))
            let result = try await FDLProcess.run(["get", server.url("a.bin"), server.url("dir/b.bin"), "-d", out.path])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("a.bin")) == a)
            #expect(try Data(contentsOf: out.file("b.bin")) == b)
            #expect(result.stdout.contains("a.bin: done -> \(out.file("a.bin").path)"))
            #expect(result.stdout.contains("2 completed, 0 failed, 0 stopped (exit 0"))
            #expect(!result.stdout.contains("\u{1B}["), "no terminal escapes when not a terminal")
            #expect(!FileManager.default.fileExists(atPath: out.file("a.bin.part").path))
        }
    }

    @Test func onATerminalItRedrawsBarsInPlace() async throws {
        try await withServer(slowRate: "400k") { server, out in
            let data = try server.serve("slow/big.iso", sampleBytes(1_200_000, seed: 3))
            try server.serve("small.txt", Data("hello\n".utf8))
            let result = try await FDLProcess.run(["get", server.url("slow/big.iso"), server.url("small.txt"), "-d", out.path],
                                                  terminal: true)
            #expect(result.status == 0, "output: \(result.stdout)")
            #expect(try Data(contentsOf: out.file("big.iso")) == data)
            let screen = result.stdout
            #expect(screen.contains("\u{1B}[2K"), "lines are cleared before they are redrawn")
            #expect(screen.range(of: "\u{1B}\\[[0-9]+A", options: .regularExpression) != nil, "the cursor moves up over the last frame")
            #expect(screen.range(of: "big.iso +\\[#*\\.+\\] +[0-9]+%", options: .regularExpression) != nil, "a partial bar is drawn")
            #expect(screen.contains("total "))
            #expect(screen.contains("ETA "))
            #expect(screen.contains("big.iso: done ->"))
        }
    }

    @Test func jsonPrintsOneEventPerLineInTheDocumentedSchema() async throws {
        try await withServer(slowRate: "600k") { server, out in
            let data = try server.serve("slow/data.bin", sampleBytes(900_000, seed: 4))
            let fdl = try FDLProcess(["get", server.url("slow/data.bin"), "-d", out.path, "--json"])
            let status = await fdl.exitStatus()
            #expect(status == 0, "stderr: \(fdl.stderr)")
            let lines = fdl.stdout.split(separator: "\n")
            let events = fdl.jsonLines
            #expect(events.count == lines.count, "every line is one JSON object")
            let names = events.compactMap { $0["type"] as? String }
            #expect(names.first == "added")
            #expect(names.last == "summary")
            #expect(names.contains("progress"))
            #expect(names.contains("completed"))
            let added = try #require(events.first)
            #expect(added["url"] as? String == server.url("slow/data.bin"))
            #expect(added["resumeFrom"] as? Int == 0)
            let received = events.filter { $0["type"] as? String == "progress" }.compactMap { ($0["progress"] as? [String: Any])?["receivedBytes"] as? Int }
            #expect(!received.isEmpty && received == received.sorted(), "progress never goes back")
            #expect(received.allSatisfy { $0 <= data.count })
            let completed = try #require(events.first { $0["type"] as? String == "completed" })
            #expect(completed["file"] as? String == out.file("data.bin").path)
            #expect(events.last?["exitCode"] as? Int == 0)
            #expect(!fdl.stdout.contains("null"))
        }
    }

    @Test func killedAndRunAgainItResumesAndTheFileIsByteExact() async throws {
        try await withServer(slowRate: "100k") { server, out in
            // About 80 s at the slow rate: the first checkpoint comes long before the end, however
            // busy the disk (the second run's Range request is not slowed down).
            let data = try server.serve("slow/resume.bin", sampleBytes(8_000_000, seed: 5))
            let arguments = ["get", server.url("slow/resume.bin"), "-d", out.path, "--json"]
            let first = try FDLProcess(arguments)
            first.whenOutput(contains: #""type":"checkpoint""#) { first.send(SIGKILL) }
            #expect(await first.exitStatus() == 128 + SIGKILL, "stdout: \(first.stdout.suffix(3_000)) stderr: \(first.stderr)")
            let part = out.file("resume.bin.part").path
            let kept = try #require(FileManager.default.attributesOfItem(atPath: part)[.size] as? Int)
            #expect(kept > 0 && kept < data.count)

            let second = try FDLProcess(arguments)
            #expect(await second.exitStatus() == 0, "stderr: \(second.stderr)")
            let added = try #require(second.jsonLines.first { $0["type"] as? String == "added" })
            let resumedFrom = try #require(added["resumeFrom"] as? Int)
            #expect(resumedFrom > 0)
            #expect(try Data(contentsOf: out.file("resume.bin")) == data)
            #expect(server.accessLog.contains { $0.hasPrefix("206 ") && $0.contains("range=\"bytes=\(resumedFrom)-\"") },
                    "the second run asked for the rest only: \(server.accessLog)")
        }
    }

    @Test func ctrlCSavesTheStateAndExits130AndTheSameCommandFinishes() async throws {
        try await withServer(slowRate: "100k") { server, out in
            let one = try server.serve("slow/int.bin", sampleBytes(8_000_000, seed: 6))
            let two = try server.serve("slow/int2.bin", sampleBytes(7_000_000, seed: 12))
            let arguments = ["get", server.url("slow/int.bin"), server.url("slow/int2.bin"), "-d", out.path, "--json"]
            let first = try FDLProcess(arguments)
            // Interrupt once both downloads have durable bytes (a checkpoint each): on a busy
            // machine the second may not have started by the first progress line. The files take
            // about 80 s at the slow rate, so a checkpoint that a busy disk delays by many seconds
            // still comes long before either completes; the second run asks for the rest with a
            // Range, which the server does not slow down.
            try await first.waitForOutput(containing: #""id":"int.bin","type":"checkpoint""#)
            try await first.waitForOutput(containing: #""id":"int2.bin","type":"checkpoint""#)
            first.send(SIGINT)
            #expect(await first.exitStatus() == 130, "stderr: \(first.stderr)")
            #expect(first.jsonLines.last?["exitCode"] as? Int == 130)
            let list = try await FDLProcess.run(["list", "-d", out.path, "--json"])
            let records = list.stdout.split(separator: "\n")
            #expect(records.count == 2)
            #expect(records.allSatisfy { $0.contains(#""state":"interrupted""#) }, "every running download is stored as interrupted: \(records)")

            let second = try FDLProcess(arguments)
            #expect(await second.exitStatus() == 0)
            let added = second.jsonLines.filter { $0["type"] as? String == "added" }
            #expect(added.count == 2)
            #expect(added.allSatisfy { ($0["resumeFrom"] as? Int ?? 0) > 0 }, "\(added)")
            #expect(try Data(contentsOf: out.file("int.bin")) == one)
            #expect(try Data(contentsOf: out.file("int2.bin")) == two)
        }
    }

    @Test func aChangedRemoteFileIsFetchedAgainNotSpliced() async throws {
        try await withServer(slowRate: "100k") { server, out in
            // 12 MB at 100 KB/s (2.4 MB completed before the kill in a full CI run); below the
            // segment threshold, so one connection. The second run asks with a Range: full speed.
            try server.serve("slow/changing.bin", sampleBytes(12_000_000, seed: 7))
            let arguments = ["get", server.url("slow/changing.bin"), "-d", out.path, "--json"]
            let first = try FDLProcess(arguments)
            first.whenOutput(contains: #""type":"checkpoint""#) { first.send(SIGKILL) }
            _ = await first.exitStatus()
            // Same size, other bytes, and a later mtime: nginx's ETag changes.
            let changed = try server.serve("slow/changing.bin", sampleBytes(12_000_000, seed: 8))
            let later = Date().addingTimeInterval(5)
            try FileManager.default.setAttributes([.modificationDate: later],
                                                  ofItemAtPath: server.root.appendingPathComponent("slow/changing.bin").path)
            let second = try FDLProcess(arguments)
            #expect(await second.exitStatus() == 0, "stderr: \(second.stderr)")
            #expect(second.jsonLines.contains { $0["type"] as? String == "restarted" && $0["reason"] as? String == "validatorChanged" })
            #expect(try Data(contentsOf: out.file("changing.bin")) == changed)
        }
    }

    @Test func aChecksumMismatchExits65AndLeavesNoFile() async throws {
        try await withServer { server, out in
            let data = try server.serve("c.bin", sampleBytes(50_000, seed: 9))
            _ = data
            let wrong = String(repeating: "0", count: 64)
            let result = try await FDLProcess.run(["get", server.url("c.bin"), "-d", out.path, "--sha256", wrong, "--retry", "0"])
            #expect(result.status == 65, "stdout: \(result.stdout)")
            #expect(result.stdout.contains("c.bin: FAILED (validationFailed)"))
            #expect(!FileManager.default.fileExists(atPath: out.file("c.bin").path))
        }
    }

    @Test func aMissingFileAmongGoodOnesExits1AndKeepsTheGoodOnes() async throws {
        try await withServer { server, out in
            let good = try server.serve("good.bin", sampleBytes(10_000, seed: 10))
            let result = try await FDLProcess.run(["get", server.url("good.bin"), server.url("missing.bin"), "-d", out.path,
                                                   "--retry", "0"])
            #expect(result.status == 1, "stdout: \(result.stdout)")
            #expect(try Data(contentsOf: out.file("good.bin")) == good)
            #expect(result.stdout.contains("missing.bin: FAILED (notFound)"))
            #expect(!FileManager.default.fileExists(atPath: out.file("missing.bin").path))
        }
    }

    @Test func pauseAndResumeFromAnotherProcess() async throws {
        try await withServer(slowRate: "100k") { server, out in
            let data = try server.serve("slow/p.bin", sampleBytes(24_000_000, seed: 11))
            // One connection: ranged segments are not slowed by the server, and would finish the
            // file before the pause reached it.
            let running = try FDLProcess(["get", server.url("slow/p.bin"), "-d", out.path, "--json", "-x", "1"])
            let pausing = Shared<FDLProcess?>(nil)
            running.whenOutput(contains: #""type":"progress""#) {
                pausing.withLock { $0 = try? FDLProcess(["pause", "p.bin", "-d", out.path]) }
            }
            // A paused download keeps the run waiting for `fdl resume`; Ctrl-C ends it.
            running.whenOutput(contains: #""type":"paused""#) { running.send(SIGINT) }
            #expect(await running.exitStatus() == 130)
            let pause = try #require(pausing.withLock { $0 })
            #expect(await pause.exitStatus() == 0, "stderr: \(pause.stderr)")
            #expect(pause.stdout.contains("asked the running fdl"))
            #expect(running.jsonLines.last?["stopped"] as? Int == 1, "the paused download counts as stopped")
            let list = try await FDLProcess.run(["list", "-d", out.path])
            #expect(list.stdout.contains("paused"))

            let resume = try await FDLProcess.run(["resume", "p.bin", "-d", out.path])
            #expect(resume.status == 0, "stdout: \(resume.stdout) stderr: \(resume.stderr)")
            #expect(try Data(contentsOf: out.file("p.bin")) == data)
            let again = try await FDLProcess.run(["get", server.url("slow/p.bin"), "-d", out.path])
            #expect(again.status == 0)
            #expect(again.stdout.contains("p.bin: already complete"))
        }
    }

    @Test func withoutARunningFdlPauseAndCancelChangeTheStoredStateAndCancelDeletesTheBytes() async throws {
        try await withServer(slowRate: "100k") { server, out in
            try server.serve("slow/a.bin", sampleBytes(30_000_000, seed: 13))
            try server.serve("slow/b.bin", sampleBytes(30_000_000, seed: 14))
            // One connection each (as above): still running when the SIGINT comes.
            let first = try FDLProcess(["get", server.url("slow/a.bin"), server.url("slow/b.bin"), "-d", out.path, "--json", "-x", "1"])
            first.whenOutput(contains: #""type":"checkpoint""#) { first.send(SIGINT) }
            #expect(await first.exitStatus() == 130)

            let pause = try await FDLProcess.run(["pause", "a.bin", "-d", out.path])
            #expect(pause.status == 0, "\(pause.stderr) \(pause.stdout)")
            #expect(pause.stdout.contains("a.bin: paused at"))
            let cancel = try await FDLProcess.run(["cancel", "b.bin", "-d", out.path])
            #expect(cancel.status == 0, "\(cancel.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.file("b.bin.part").path))
            let list = try await FDLProcess.run(["list", "-d", out.path])
            #expect(list.stdout.range(of: "a.bin +paused", options: .regularExpression) != nil, "\(list.stdout)")
            #expect(list.stdout.range(of: "b.bin +cancelled", options: .regularExpression) != nil, "\(list.stdout)")
            let again = try await FDLProcess.run(["cancel", "b.bin", "-d", out.path])
            #expect(again.status == 1)
            #expect(again.stderr.contains("cannot cancel 'b.bin': the download 'b.bin' is already cancelled"), "\(again.stderr)")
        }
    }
}
