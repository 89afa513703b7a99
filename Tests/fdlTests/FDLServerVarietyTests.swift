import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get` against Apache httpd and lighttpd, which answer differently from nginx: Apache serves
/// a `.tar.gz` with `Content-Encoding: gzip` (`AddEncoding gzip .gz`), and both answer a range past
/// the end with a 416 without `Content-Range` (docs/http.md, "Content codings" and "The last-byte
/// check").
@Suite(.timeLimit(.minutes(5))) struct FDLServerVarietyTests {
    /// Writes `data` as `name` under `root`, dated `daysBack` days back (Apache makes the ETag of a
    /// file modified within the last second weak).
    @discardableResult
    func serve(_ root: URL, _ name: String, _ data: Data, daysBack: Double = 1) throws -> Data {
        let file = root.appendingPathComponent(name)
        try data.write(to: file)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400 * daysBack)],
                                              ofItemAtPath: file.path)
        return data
    }

    /// Runs `body` with a served directory and an output directory, removed afterwards.
    func withDirectories(_ body: (TemporaryDirectory, TemporaryDirectory) async throws -> Void) async throws {
        let root = try TemporaryDirectory("fdl-served")
        let out = try TemporaryDirectory("fdl-out")
        defer {
            root.remove()
            out.remove()
        }
        try await body(root, out)
    }

    /// Apache's log lines for `name`.
    func requests(_ apache: ApacheServer, _ name: String) throws -> [String] {
        try apache.accessLog().filter { $0.hasPrefix("/\(name) ") }
    }

    @Test func anEncodedArchiveFromApacheIsSavedByteExactOnOneConnectionAndOnFour() async throws {
        try await withDirectories { root, out in
            let small = try serve(root.url, "a.tar.gz", sampleBytes(300_000, seed: 31))
            let big = try serve(root.url, "big.tar.gz", sampleBytes(20 << 20, seed: 32))
            let apache = try await ApacheServer(root: root.url)
            defer { apache.stop() }
            let one = try await FDLProcess.run(["get", apache.url("a.tar.gz").absoluteString, "-d", out.path])
            #expect(one.status == 0, "stdout: \(one.stdout) stderr: \(one.stderr)")
            #expect(try Data(contentsOf: out.file("a.tar.gz")) == small)
            let four = try await FDLProcess.run(["get", apache.url("big.tar.gz").absoluteString, "-d", out.path, "-x", "4"])
            #expect(four.status == 0, "stdout: \(four.stdout) stderr: \(four.stderr)")
            #expect(try Data(contentsOf: out.file("big.tar.gz")) == big)
            let lines = try requests(apache, "big.tar.gz")
            #expect(lines.filter { $0.contains(" 206 ") }.count >= 3, "four connections asked for ranges: \(lines)")
        }
    }

    @Test func anEncodedArchiveKilledMidwayResumesWithARangeAndIsByteExact() async throws {
        try await withDirectories { root, out in
            // About 20 s at 100 KiB/s: the first checkpoint (every 2 s) comes long before the end; the
            // second run's range is not slowed down.
            let data = try serve(root.url, "k.tar.gz", sampleBytes(2_000_000, seed: 33))
            let apache = try await ApacheServer(root: root.url, kibibytesPerSecond: 100)
            defer { apache.stop() }
            let arguments = ["get", apache.url("k.tar.gz").absoluteString, "-d", out.path, "--json", "-x", "1"]
            let first = try FDLProcess(arguments)
            first.whenOutput(contains: #""type":"checkpoint""#) { first.send(SIGKILL) }
            #expect(await first.exitStatus() == 128 + SIGKILL, "stdout: \(first.stdout.suffix(3_000)) stderr: \(first.stderr)")

            let second = try FDLProcess(arguments)
            #expect(await second.exitStatus() == 0, "stdout: \(second.stdout.suffix(3_000)) stderr: \(second.stderr)")
            let added = try #require(second.jsonLines.first { $0["type"] as? String == "added" })
            let resumedFrom = try #require(added["resumeFrom"] as? Int)
            #expect(resumedFrom > 0 && resumedFrom < data.count)
            #expect(!second.stdout.contains(#""type":"restarted""#), "resumed, not started again: \(second.stdout.suffix(3_000))")
            #expect(try Data(contentsOf: out.file("k.tar.gz")) == data)
            // Apache logs a request when it ends: the killed first one may come after the resume.
            let lines = try requests(apache, "k.tar.gz")
            #expect(lines.contains("/k.tar.gz 206 \(data.count - resumedFrom) \"bytes=\(resumedFrom)-\""), "\(lines)")
        }
    }

    /// `fdl get -N` twice against a server, then again after the file was replaced.
    func timestamping(url: URL, root: URL, name: String, out: TemporaryDirectory,
                      lastLine: () throws -> String?) async throws {
        let arguments = ["get", url.absoluteString, "-d", out.path, "-N"]
        let first = try await FDLProcess.run(arguments)
        #expect(first.status == 0, "stdout: \(first.stdout) stderr: \(first.stderr)")
        let unchanged = try await FDLProcess.run(arguments)
        #expect(unchanged.status == 0, "stdout: \(unchanged.stdout) stderr: \(unchanged.stderr)")
        #expect(unchanged.stdout.contains("up to date"), "stdout: \(unchanged.stdout)")
        if let line = try lastLine() {
            #expect(line.hasSuffix("206 1 \"bytes=99999-\""), "one byte, under If-Range: \(line)")
        }

        let changed = try serve(root, name, sampleBytes(110_000, seed: 35), daysBack: 2)
        let again = try await FDLProcess.run(arguments)
        #expect(again.status == 0, "stdout: \(again.stdout) stderr: \(again.stderr)")
        #expect(again.stdout.contains("changed"), "stdout: \(again.stdout)")
        #expect(try Data(contentsOf: out.file(name)) == changed)
    }

    @Test func timestampingAgainstApacheTellsUnchangedFromChanged() async throws {
        try await withDirectories { root, out in
            // An encoded archive: the record keeps its coding, and the check compares it.
            try serve(root.url, "n.tar.gz", sampleBytes(100_000, seed: 34))
            let apache = try await ApacheServer(root: root.url)
            defer { apache.stop() }
            try await timestamping(url: apache.url("n.tar.gz"), root: root.url, name: "n.tar.gz", out: out) {
                try requests(apache, "n.tar.gz").last
            }
        }
    }

    @Test func timestampingAgainstLighttpdTellsUnchangedFromChanged() async throws {
        try await withDirectories { root, out in
            try serve(root.url, "n.bin", sampleBytes(100_000, seed: 36))
            let lighttpd = try await LighttpdServer(root: root.url)
            defer { lighttpd.stop() }
            try await timestamping(url: lighttpd.url("n.bin"), root: root.url, name: "n.bin", out: out) { nil }
        }
    }
}
