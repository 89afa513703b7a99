import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get --content-disposition` against nginx answering `Content-Disposition` with plain and
/// hostile names: the file is saved under the server's name, sanitised, always directly in DIR,
/// never over a file that is there.
@Suite struct FDLContentDispositionTests {
    static let locations = #"""
        location = /cd/plain.bin { add_header Content-Disposition 'attachment; filename="report.pdf"'; }
        location = /cd/traversal.bin { add_header Content-Disposition 'attachment; filename="../../etc/x"'; }
        location = /cd/hidden.bin { add_header Content-Disposition 'attachment; filename=".hidden"'; }
        location = /cd/slash.bin { add_header Content-Disposition 'attachment; filename="a/b"'; }
        location = /cd/utf8.bin { add_header Content-Disposition "attachment; filename=\"fallback.txt\"; filename*=UTF-8''%C3%A9t%C3%A9.txt"; }
        """#

    func withServer(_ body: (NginxServer, TemporaryDirectory) async throws -> Void) async throws {
        try await NginxServer.withServer(locations: Self.locations, body)
    }

    /// The regular files directly in `directory`, without the state directory.
    func files(in directory: TemporaryDirectory) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != ".fdl" })
    }

    @Test func theServersNameIsUsedAndARunAgainFindsItComplete() async throws {
        try await withServer { server, out in
            let data = try server.serve("cd/plain.bin", sampleBytes(120_000, seed: 71))
            let arguments = ["get", server.url("cd/plain.bin"), "-d", out.path, "--content-disposition"]
            let result = try await FDLProcess.run(arguments)
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("report.pdf")) == data)
            #expect(try files(in: out) == ["report.pdf"])
            #expect(result.stdout.contains("done -> \(out.file("report.pdf").path)"), "stdout: \(result.stdout)")

            let again = try await FDLProcess.run(arguments)
            #expect(again.status == 0, "stdout: \(again.stdout)")
            #expect(again.stdout.contains("already complete at \(out.file("report.pdf").path)"), "stdout: \(again.stdout)")
            #expect(try files(in: out) == ["report.pdf"])
            #expect(server.accessLog.filter { $0.contains("GET /cd/plain.bin") }.count == 1, "nothing fetched again")
        }
    }

    @Test func withoutTheOptionTheURLsNameIsUsed() async throws {
        try await withServer { server, out in
            let data = try server.serve("cd/plain.bin", sampleBytes(1_000, seed: 72))
            let result = try await FDLProcess.run(["get", server.url("cd/plain.bin"), "-d", out.path])
            #expect(result.status == 0, "stdout: \(result.stdout)")
            #expect(try Data(contentsOf: out.file("plain.bin")) == data)
        }
    }

    @Test func aFileAtTheServersNameIsKeptAndTheDownloadGetsTheNextName() async throws {
        try await withServer { server, out in
            let data = try server.serve("cd/plain.bin", sampleBytes(10_000, seed: 73))
            let mine = Data("my own report\n".utf8)
            try mine.write(to: out.file("report.pdf"))
            let result = try await FDLProcess.run(["get", server.url("cd/plain.bin"), "-d", out.path, "--content-disposition"])
            #expect(result.status == 0, "stdout: \(result.stdout)")
            #expect(try Data(contentsOf: out.file("report.pdf")) == mine, "never overwritten")
            #expect(try Data(contentsOf: out.file("report.1.pdf")) == data)
        }
    }

    @Test(arguments: [("traversal.bin", "../../etc/x"), ("hidden.bin", ".hidden"), ("slash.bin", "a/b"), ("utf8.bin", "été.txt")])
    func hostileNamesStayPlainFileNamesInDIR(path: String, suggested: String) async throws {
        try await withServer { server, out in
            let data = try server.serve("cd/\(path)", sampleBytes(5_000, seed: 74))
            // DIR is nested 4 levels deep inside the test's directory: were the name not
            // sanitised, `../../etc/x` would still land inside the temporary directory (the tests
            // run as root), at a/b/etc/x, which the last check looks for.
            let inner = out.file("a/b/c/inner")
            try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
            let result = try await FDLProcess.run(["get", server.url("cd/\(path)"), "-d", inner.path, "--content-disposition"])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            let expected = FileNameSanitizer.sanitize(suggested)
            #expect(!expected.contains("/") && !expected.hasPrefix("."))
            let saved = Set(try FileManager.default.contentsOfDirectory(atPath: inner.path).filter { $0 != ".fdl" })
            #expect(saved == [expected], "saved: \(saved)")
            #expect(try Data(contentsOf: inner.appendingPathComponent(expected)) == data)
            #expect(try files(in: out) == ["a"], "nothing was written beside DIR")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.file("a/b").path) == ["c"], "nothing left DIR")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.file("a/b/c").path) == ["inner"], "nothing left DIR")
            if suggested == "été.txt" { #expect(expected == "été.txt", "filename* (RFC 8187) wins over filename") }
        }
    }
}
