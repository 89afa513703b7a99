import Crypto
import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get -i FILE` and `-i -` run as a process against nginx.
@Suite struct FDLInputFileTests {
    @Test func threeFilesWithAMirrorLineANameAndAChecksum() async throws {
        try await NginxServer.withServer { server, out in
            let a = try server.serve("a.bin", sampleBytes(30_000, seed: 50))
            let b = try server.serve("b.bin", sampleBytes(40_000, seed: 51))
            let c = try server.serve("c.bin", sampleBytes(50_000, seed: 52))
            let digest = SHA256.hash(data: b).map { String(format: "%02x", $0) }.joined()
            let list = out.file("list.txt").path
            try """
                # three files
                \(server.url("a.bin"))
                  out=first.bin

                \(server.url("b.bin"))\t\(server.url("mirror/b.bin"))
                  checksum=sha-256=\(digest)
                \(server.url("c.bin"))
                """.write(toFile: list, atomically: true, encoding: .utf8)
            let result = try await FDLProcess.run(["get", "-i", list, "-d", out.path])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("first.bin")) == a)
            #expect(try Data(contentsOf: out.file("b.bin")) == b)
            #expect(try Data(contentsOf: out.file("c.bin")) == c)
            #expect(result.stdout.contains("verified: SHA-256"), "\(result.stdout)")
        }
    }

    @Test func standardInputAndTheCommandLineTogether() async throws {
        try await NginxServer.withServer { server, out in
            let one = try server.serve("one.bin", sampleBytes(10_000, seed: 53))
            let two = try server.serve("two.bin", sampleBytes(10_000, seed: 54))
            let result = try await FDLProcess.run(["get", server.url("one.bin"), "-i", "-", "-d", out.path],
                                                  input: Data("\(server.url("two.bin"))\n".utf8))
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("one.bin")) == one)
            #expect(try Data(contentsOf: out.file("two.bin")) == two)
        }
    }

    @Test func anErrorNamesTheLineAndNothingIsCreated() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try await FDLProcess.run(["get", "-i", "-", "-d", dir.path + "/out"],
                                              input: Data("http://127.0.0.1:9/a\n  dir=/tmp\n".utf8))
        #expect(result.status == 64)
        #expect(result.stderr.contains("standard input:2: dir= is not supported"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out"))
    }

    @Test func twoThousandURLsArePlanned() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = (0..<2_000).map { "http://127.0.0.1:9/f\($0).bin" }.joined(separator: "\n")
        let result = try await FDLProcess.run(["get", "-i", "-", "-d", dir.path, "--dry-run"], input: Data(list.utf8))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("dry run: 2000 to download, 0 to continue, 0 already complete"), "\(result.stdout.suffix(300))")
    }
}
