import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get` never replaces a file it did not download, no two downloads of a run share a file
/// or a staging file, and "already complete" is said only of a file still there with its size.
@Suite struct FDLFileNamingTests {
    @Test func aFileFdlDidNotDownloadIsKeptAndTheDownloadGetsANewName() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("report.pdf", sampleBytes(40_000, seed: 51))
            let bare = try server.serve("README", sampleBytes(5_000, seed: 52))
            let mine = Data("my own notes\n".utf8)
            for name in ["report.pdf", "README", "report.1.pdf.part"] { try mine.write(to: out.file(name)) }
            let arguments = ["get", server.url("report.pdf"), server.url("README"), "-d", out.path]
            let first = try await FDLProcess.run(arguments)
            #expect(first.status == 0, "stdout: \(first.stdout) stderr: \(first.stderr)")
            for name in ["report.pdf", "README", "report.1.pdf.part"] {
                #expect(try Data(contentsOf: out.file(name)) == mine, "\(name) is kept")
            }
            // report.1.pdf's staging name is someone else's file: the next name.
            #expect(try Data(contentsOf: out.file("report.2.pdf")) == data)
            #expect(try Data(contentsOf: out.file("README.1")) == bare)
            #expect(first.stdout.contains("\(out.file("report.pdf").path) (or its .part) was not downloaded by fdl and is kept"))

            let again = try FDLProcess(arguments + ["--json"])
            #expect(await again.exitStatus() == 0, "stderr: \(again.stderr)")
            let done = again.jsonLines.filter { $0["type"] as? String == "completed" }
            #expect(done.compactMap { $0["state"] as? String } == ["alreadyComplete", "alreadyComplete"], "\(again.stdout)")
            #expect(done.compactMap { $0["file"] as? String } == [out.file("report.2.pdf").path, out.file("README.1").path])
            #expect(!FileManager.default.fileExists(atPath: out.file("report.3.pdf").path))

            let overwrite = try await FDLProcess.run(["get", server.url("report.pdf"), "-d", out.path, "--name", "README",
                                                      "--allow-overwrite"])
            #expect(overwrite.status == 0, "stderr: \(overwrite.stderr)")
            #expect(try Data(contentsOf: out.file("README")) == data, "--allow-overwrite replaces it")
        }
    }

    @Test(arguments: [["x", "x.part"], ["x.part", "x"]])
    func aNameAndAnotherDownloadsStagingNameAreTwoFiles(order: [String]) async throws {
        try await NginxServer.withServer { server, out in
            // x arrives slowly: x.part completes while x still writes its staging file.
            let x = try server.serve("slow/x", sampleBytes(300_000, seed: 53))
            let part = try server.serve("b/x.part", sampleBytes(200_000, seed: 54))
            let urls = order.map { server.url($0 == "x" ? "slow/x" : "b/x.part") }
            let result = try FDLProcess(["get"] + urls + ["-d", out.path, "--json"])
            #expect(await result.exitStatus() == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            let files = Dictionary(uniqueKeysWithValues: result.jsonLines
                .filter { $0["type"] as? String == "completed" }
                .compactMap { line in (line["id"] as? String).flatMap { id in (line["file"] as? String).map { (id, $0) } } })
            #expect(files.count == 2, "\(result.stdout)")
            let contents = try files.values.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
            #expect(Set(contents) == [x, part], "each URL has its own file: \(files)")
        }
    }

    @Test func alreadyCompleteOnlyWhenTheFileIsStillThereWithItsSize() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("f.bin", sampleBytes(50_000, seed: 55))
            let arguments = ["get", server.url("f.bin"), "-d", out.path]
            #expect(try await FDLProcess.run(arguments).status == 0)

            try FileManager.default.removeItem(at: out.file("f.bin"))
            let gone = try await FDLProcess.run(arguments)
            #expect(gone.status == 0, "stderr: \(gone.stderr)")
            #expect(!gone.stdout.contains("already complete"), "\(gone.stdout)")
            #expect(try Data(contentsOf: out.file("f.bin")) == data)

            let changed = Data("edited by hand\n".utf8)
            try changed.write(to: out.file("f.bin"))
            let other = try await FDLProcess.run(arguments)
            #expect(other.status == 0, "stderr: \(other.stderr)")
            #expect(!other.stdout.contains("already complete"), "\(other.stdout)")
            #expect(try Data(contentsOf: out.file("f.bin")) == changed, "a file of another size is not fdl's: kept")
            #expect(try Data(contentsOf: out.file("f.1.bin")) == data)

            let last = try await FDLProcess.run(arguments)
            #expect(last.stdout.contains("f.1.bin: already complete at \(out.file("f.1.bin").path)"), "\(last.stdout)")
        }
    }
}
