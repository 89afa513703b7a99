import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing

/// Every command refuses a stored download whose paths leave its download directory: the state is
/// read from a file anybody with access to `DIR/.fdl` could have written, so it is not trusted as a
/// path. Each test crafts such a state, runs `fdl` as a process, and checks that nothing outside
/// DIR changed.
@Suite struct FDLStatePathTests {
    /// A download directory and, beside it, a directory with a file and a tree fdl must not touch.
    struct Scene {
        let out: TemporaryDirectory
        let victim: TemporaryDirectory
        let precious = Data("precious bytes, not fdl's\n".utf8)

        init() throws {
            out = try TemporaryDirectory("fdl-paths-out")
            victim = try TemporaryDirectory("fdl-paths-victim")
            try FileManager.default.createDirectory(at: victim.file("tree/inner"), withIntermediateDirectories: true)
            try precious.write(to: victim.file("tree/inner/keep.txt"))
            try precious.write(to: victim.file("target.txt"))
        }

        func victimIsIntact() -> Bool {
            FileManager.default.contents(atPath: victim.path("tree/inner/keep.txt")) == precious
                && FileManager.default.contents(atPath: victim.path("target.txt")) == precious
        }

        func remove() {
            out.remove()
            victim.remove()
        }
    }

    @Test func cancelRefusesAStagingPathOutsideTheDirectoryAndDeletesNothing() async throws {
        let scene = try Scene()
        defer { scene.remove() }
        try StateFixture.writeLegacyState([
            StateFixture.paused("x.bin", url: "http://127.0.0.1:9/x.bin", destination: scene.out.path("x.bin"),
                                partPath: scene.victim.path("tree")),
        ], outputDirectory: scene.out)
        let result = try await FDLProcess.run(["cancel", "x.bin", "-d", scene.out.path])
        #expect(result.status == 74, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("outside"), "stderr: \(result.stderr)")
        #expect(scene.victimIsIntact())
    }

    @Test func cancelRefusesAStagingPathThatIsAnotherFileOfTheDirectory() async throws {
        let scene = try Scene()
        defer { scene.remove() }
        // Inside DIR, but not the download's staging file: the user's own file.
        let users = scene.out.path("notes.txt")
        try scene.precious.write(to: URL(fileURLWithPath: users))
        try StateFixture.writeLegacyState([
            StateFixture.paused("n.bin", url: "http://127.0.0.1:9/n.bin", destination: scene.out.path("n.bin"), partPath: users),
        ], outputDirectory: scene.out)
        let result = try await FDLProcess.run(["cancel", "n.bin", "-d", scene.out.path])
        #expect(result.status == 74, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("plus '.part'"), "stderr: \(result.stderr)")
        #expect(FileManager.default.contents(atPath: users) == scene.precious)
    }

    @Test func cancelDeletesRegularFilesOnlyNeverATree() async throws {
        let scene = try Scene()
        defer { scene.remove() }
        let part = scene.out.path("d.bin.part")
        try FileManager.default.createDirectory(atPath: part + "/sub", withIntermediateDirectories: true)
        try scene.precious.write(to: URL(fileURLWithPath: part + "/sub/keep.txt"))
        try StateFixture.writeLegacyState([
            StateFixture.paused("d.bin", url: "http://127.0.0.1:9/d.bin", destination: scene.out.path("d.bin"), partPath: part),
        ], outputDirectory: scene.out)
        let result = try await FDLProcess.run(["cancel", "d.bin", "-d", scene.out.path])
        #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("not a regular file"), "stderr: \(result.stderr)")
        #expect(FileManager.default.contents(atPath: part + "/sub/keep.txt") == scene.precious)
        let list = try await FDLProcess.run(["list", "-d", scene.out.path])
        #expect(list.stdout.range(of: "d.bin +paused", options: .regularExpression) != nil, "the state is unchanged: \(list.stdout)")
    }

    @Test func resumeRefusesADestinationOrStagingFileOutsideTheDirectory() async throws {
        let server = try await NginxServer()
        let scene = try Scene()
        defer {
            server.stop()
            scene.remove()
        }
        try server.serve("r.bin", sampleBytes(40_000, seed: 21))
        try StateFixture.writeLegacyState([
            StateFixture.paused("r1.bin", url: server.url("r.bin"), destination: scene.victim.path("target.txt"),
                                partPath: scene.victim.path("target.txt.part")),
            StateFixture.paused("r2.bin", url: server.url("r.bin"), destination: scene.out.path("r2.bin"),
                                partPath: scene.victim.path("target.txt")),
            StateFixture.paused("r3.bin", url: server.url("r.bin"), destination: scene.out.path("r3.bin"),
                                partPath: scene.out.path("sub/../../\(scene.victim.url.lastPathComponent)/target.txt")),
        ], outputDirectory: scene.out)
        for id in ["r1.bin", "r2.bin", "r3.bin"] {
            let result = try await FDLProcess.run(["resume", id, "-d", scene.out.path])
            #expect(result.status == 74, "\(id): stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stderr.contains("outside"), "\(id): stderr: \(result.stderr)")
            #expect(scene.victimIsIntact(), "\(id) wrote outside its directory")
        }
        #expect(server.accessLog.isEmpty, "nothing was fetched: \(server.accessLog)")
    }

    @Test func pauseRefusesARecordOutsideTheDirectoryAndListWarnsAboutIt() async throws {
        let scene = try Scene()
        defer { scene.remove() }
        try StateFixture.writeLegacyState([
            StateFixture.paused("p.bin", url: "http://127.0.0.1:9/p.bin", destination: scene.victim.path("target.txt"),
                                partPath: scene.out.path("p.bin.part")),
        ], outputDirectory: scene.out)
        let pause = try await FDLProcess.run(["pause", "p.bin", "-d", scene.out.path])
        #expect(pause.status == 74, "stdout: \(pause.stdout) stderr: \(pause.stderr)")
        let list = try await FDLProcess.run(["list", "-d", scene.out.path])
        #expect(list.status == 0)
        #expect(list.stderr.contains("p.bin") && list.stderr.contains("outside"), "stderr: \(list.stderr)")
        #expect(scene.victimIsIntact())
    }

    @Test func getIgnoresAStoredStagingFileOutsideTheDirectoryAndDownloadsAfresh() async throws {
        let server = try await NginxServer()
        let scene = try Scene()
        defer {
            server.stop()
            scene.remove()
        }
        let data = try server.serve("g.bin", sampleBytes(50_000, seed: 22))
        try StateFixture.writeLegacyState([
            StateFixture.paused("g.bin", url: server.url("g.bin"), destination: scene.out.path("g.bin"),
                                partPath: scene.victim.path("target.txt")),
        ], outputDirectory: scene.out)
        let result = try await FDLProcess.run(["get", server.url("g.bin"), "-d", scene.out.path, "--json"])
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("g.bin") && result.stderr.contains("outside"), "stderr: \(result.stderr)")
        #expect(result.stdout.contains(#""resumeFrom":0"#), "\(result.stdout)")
        #expect(try Data(contentsOf: scene.out.file("g.bin")) == data)
        #expect(scene.victimIsIntact())
    }
}
