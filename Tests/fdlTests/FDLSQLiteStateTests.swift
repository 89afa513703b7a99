import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl` keeps its state in the library's SQLite store (`DIR/.fdl/state.sqlite`) and imports the
/// `state.json` of its first release once.
@Suite struct FDLSQLiteStateTests {
    @Test func getKeepsItsStateInSQLite() async throws {
        let server = try await NginxServer()
        let out = try TemporaryDirectory("fdl-sqlite-out")
        defer {
            server.stop()
            out.remove()
        }
        let names = (0..<40).map { "many/f\($0)" }
        for (n, name) in names.enumerated() { try server.serve(name, sampleBytes(3_000 + n, seed: UInt8(n))) }
        let result = try await FDLProcess.run(["get"] + names.map(server.url) + ["-d", out.path, "-j", "16"])
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        let state = try FileManager.default.contentsOfDirectory(atPath: out.path(".fdl"))
        #expect(state.contains("state.sqlite"), "\(state)")
        #expect(!state.contains("state.json"), "\(state)")
        let header = try #require(FileManager.default.contents(atPath: out.path(".fdl/state.sqlite"))?.prefix(16))
        #expect(String(decoding: header, as: UTF8.self) == "SQLite format 3\0")
        let list = try await FDLProcess.run(["list", "-d", out.path, "--json"])
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == names.count)
        #expect(lines.allSatisfy { $0.contains(#""state":"completed""#) }, "\(list.stdout)")
    }

    @Test func anOldStateFileIsImportedOnceAndItsBytesAreContinued() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("old.bin", sampleBytes(200_000, seed: 33))
            let etag = try Self.entityTag(of: server.root.appendingPathComponent("old.bin"))
            try data.prefix(80_000).write(to: out.file("old.bin.part"))
            try StateFixture.writeLegacyState([
                DownloadRecord(id: "old.bin", url: URL(string: server.url("old.bin"))!, destination: out.file("old.bin"),
                               partPath: out.path("old.bin.part"), state: .interrupted, validator: .entityTag(etag),
                               checkpointedBytes: 80_000, expectedLength: Int64(data.count)),
            ], outputDirectory: out)

            let result = try await FDLProcess.run(["get", server.url("old.bin"), "-d", out.path, "--json"])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout.contains(#""resumeFrom":80000"#), "\(result.stdout)")
            #expect(try Data(contentsOf: out.file("old.bin")) == data)
            let state = try FileManager.default.contentsOfDirectory(atPath: out.path(".fdl"))
            #expect(!state.contains("state.json") && state.contains("state.json.imported"), "\(state)")
            #expect(server.accessLog.contains { $0.hasPrefix("206 ") && $0.contains("bytes=80000-") }, "\(server.accessLog)")
        }
    }

    @Test func aDamagedOldStateFileIsAClearErrorAndIsKept() async throws {
        let out = try TemporaryDirectory("fdl-import-bad")
        defer { out.remove() }
        try FileManager.default.createDirectory(at: out.file(".fdl"), withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: out.file(".fdl/state.json"))
        let result = try await FDLProcess.run(["list", "-d", out.path])
        #expect(result.status == 74, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("state.json"), "\(result.stderr)")
        #expect(try String(contentsOfFile: out.path(".fdl/state.json"), encoding: .utf8) == "{ not json")
    }

    /// The ETag nginx sends for a file it serves: its mtime and its size in hex (what a first run
    /// would have stored).
    static func entityTag(of file: URL) throws -> String {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let mtime = Int((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        let size = (attributes[.size] as? Int) ?? 0
        return "\"" + String(mtime, radix: 16) + "-" + String(size, radix: 16) + "\""
    }
}
