import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get -N`: a completed file is checked against the server and fetched again only when the
/// server's file changed (HTTP: validator and size through a range request at the end of the
/// file; SFTP: size and mtime).
@Suite struct FDLTimestampingTests {
    /// Replaces the served file at `url` with `data` and a modification time a day back, so that
    /// its validator (nginx: mtime and size; SFTP: size and mtime) surely changes.
    func replace(_ file: URL, with data: Data) throws {
        try data.write(to: file)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: file.path)
    }

    func inode(_ path: String) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }

    @Test func httpUnchangedIsUpToDateWithoutAFullGetAndChangedIsFetchedAgain() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("t.bin", sampleBytes(200_000, seed: 91))
            let arguments = ["get", server.url("t.bin"), "-d", out.path, "-N"]
            let first = try await FDLProcess.run(arguments)
            #expect(first.status == 0, "stdout: \(first.stdout) stderr: \(first.stderr)")
            let saved = out.file("t.bin").path
            let inodeBefore = try inode(saved)

            let unchanged = try await FDLProcess.run(arguments)
            #expect(unchanged.status == 0, "stdout: \(unchanged.stdout) stderr: \(unchanged.stderr)")
            #expect(unchanged.stdout.contains("up to date"), "stdout: \(unchanged.stdout)")
            let requests = server.accessLog.filter { $0.contains("GET /t.bin") }
            #expect(requests.count == 2, "\(requests)")
            #expect(requests.filter { $0.hasPrefix("200 ") }.count == 1, "one full GET only: \(requests)")
            #expect(requests.last?.contains("range=\"bytes=199999-\"") == true, "the last byte under If-Range: \(requests)")
            #expect(try inode(saved) == inodeBefore, "the file was not rewritten")

            let changed = sampleBytes(210_000, seed: 92)
            try replace(server.root.appendingPathComponent("t.bin"), with: changed)
            let again = try await FDLProcess.run(arguments)
            #expect(again.status == 0, "stdout: \(again.stdout) stderr: \(again.stderr)")
            #expect(again.stdout.contains("changed"), "stdout: \(again.stdout)")
            #expect(try Data(contentsOf: out.file("t.bin")) == changed)
            #expect(!FileManager.default.fileExists(atPath: out.file("t.1.bin").path), "fdl's own file is replaced")
        }
    }

    @Test func withoutNACompletedFileStaysCompleteEvenWhenTheServerChanged() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("s.bin", sampleBytes(50_000, seed: 93))
            let arguments = ["get", server.url("s.bin"), "-d", out.path]
            #expect(try await FDLProcess.run(arguments).status == 0)
            try replace(server.root.appendingPathComponent("s.bin"), with: sampleBytes(60_000, seed: 94))
            let again = try await FDLProcess.run(arguments)
            #expect(again.stdout.contains("already complete"), "stdout: \(again.stdout)")
            #expect(try Data(contentsOf: out.file("s.bin")) == data)
        }
    }

    @Test func aServerThatCannotBeAskedFailsAndKeepsTheFile() async throws {
        let out = try TemporaryDirectory("fdl-n-down")
        defer { out.remove() }
        var url = ""
        var data = Data()
        try await NginxServer.withServer { server, first in
            data = try server.serve("d.bin", sampleBytes(20_000, seed: 95))
            url = server.url("d.bin")
            #expect(try await FDLProcess.run(["get", url, "-d", out.path]).status == 0)
        }
        let result = try await FDLProcess.run(["get", url, "-d", out.path, "-N", "--retry", "0"])
        #expect(result.status == 1, "stdout: \(result.stdout)")
        #expect(result.stdout.contains("cannot check"), "stdout: \(result.stdout)")
        #expect(try Data(contentsOf: out.file("d.bin")) == data)
    }

    @Test func sftpUnchangedIsUpToDateAndChangedIsFetchedAgain() async throws {
        let server = try SSHServer()
        let out = try TemporaryDirectory("fdl-n-sftp")
        defer {
            server.stop()
            out.remove()
        }
        let path = try server.serve("n.bin", sampleBytes(80_000, seed: 96))
        let arguments = ["get", server.address(path), "-d", out.path, "-N", "--identity", server.clientKey,
                         "--known-hosts", server.knownHosts]
        let first = try await FDLProcess.run(arguments)
        #expect(first.status == 0, "stdout: \(first.stdout) stderr: \(first.stderr)")
        let unchanged = try await FDLProcess.run(arguments)
        #expect(unchanged.status == 0, "stdout: \(unchanged.stdout)")
        #expect(unchanged.stdout.contains("up to date"), "stdout: \(unchanged.stdout)")

        let changed = sampleBytes(90_000, seed: 97)
        try replace(URL(fileURLWithPath: path), with: changed)
        let again = try await FDLProcess.run(arguments)
        #expect(again.status == 0, "stdout: \(again.stdout) stderr: \(again.stderr)")
        #expect(again.stdout.contains("changed"), "stdout: \(again.stdout)")
        #expect(try Data(contentsOf: out.file("n.bin")) == changed)
    }
}
