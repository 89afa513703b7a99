import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `fdl get` with 40 URLs on a pseudo-terminal of a given size, against nginx on 127.0.0.1: the
/// live display stays inside the terminal, also after the window is resized.
@Suite struct FDLLiveDisplayTests {
    /// Serves 40 files under `slow/` and returns their URLs and contents.
    func serveForty(_ server: NginxServer, size: Int) throws -> [(url: String, name: String, data: Data)] {
        try (1...40).map { i in
            let name = "file-\(i < 10 ? "0" : "")\(i)-of-a-rather-long-dataset-name.bin"
            return (server.url("slow/" + name), name, try server.serve("slow/" + name, sampleBytes(size, seed: UInt8(i))))
        }
    }

    @Test(arguments: [(120, 30), (60, 20)])
    func fortyDownloadsStayInsideTheTerminal(columns: Int, rows: Int) async throws {
        try await NginxServer.withServer(slowRate: "1m") { server, out in
            let files = try serveForty(server, size: 300_000)
            let fdl = try FDLProcess(["get"] + files.map(\.url) + ["-d", out.path], terminal: true, columns: columns, rows: rows)
            let status = await fdl.exitStatus()
            #expect(status == 0, "stdout: \(fdl.stdout) stderr: \(fdl.stderr)")
            for file in files {
                #expect(try Data(contentsOf: out.file(file.name)) == file.data)
            }
            let screen = TerminalFrames(fdl.stdout)
            #expect(!screen.frames.isEmpty, "the live display was drawn: \(fdl.stdout)")
            #expect(screen.problems(columns: columns, rows: rows) == [])
            let summaries = screen.frames.flatMap(\.lines).filter { $0.hasPrefix("+") && $0.hasSuffix(" waiting") }
            #expect(!summaries.isEmpty, "the waiting downloads are summed up in one line")
            let totals = screen.frames.compactMap(\.lines.last)
            #expect(totals.allSatisfy { $0.hasPrefix("total ") && $0.contains("/40") }, "\(totals)")
            #expect(fdl.stdout.contains("40 completed, 0 failed"))
        }
    }

    @Test func afterSIGWINCHFramesFitTheNewSize() async throws {
        try await NginxServer.withServer(slowRate: "32k") { server, out in
            let files = try serveForty(server, size: 8_000_000)
            let fdl = try FDLProcess(["get"] + files.map(\.url) + ["-d", out.path, "-j", "40", "--max-connections-per-host", "40"],
                                     terminal: true, columns: 120, rows: 30)
            // With 40 downloads at once, a 30-line terminal is filled: 28 rows and the total line.
            try await fdl.waitForOutput("a frame of 29 lines") { output in
                TerminalFrames(output).frames.contains { $0.lines.count == 29 }
            }
            let resizedAt = fdl.stdout.utf8.count
            try fdl.resize(columns: 60, rows: 20)
            try await fdl.waitForOutput("two frames at the new size") { output in
                TerminalFrames(output).frames.filter {
                    $0.offset >= resizedAt && TerminalFrames.fits($0, columns: 60, rows: 20)
                }.count >= 2
            }
            fdl.send(SIGINT)
            #expect(await fdl.exitStatus() == 130, "stderr: \(fdl.stderr)")

            let screen = TerminalFrames(fdl.stdout)
            // The first frame drawn at the new size; a frame already under way when the size
            // changed may still be drawn at the old one, but none after it.
            let switched = try #require(screen.frames.first {
                $0.offset >= resizedAt && TerminalFrames.fits($0, columns: 60, rows: 20)
            })
            #expect(screen.problems(columns: 120, rows: 30, before: switched.offset) == [])
            #expect(screen.problems(columns: 60, rows: 20, from: switched.offset) == [])
            #expect(switched.lines.count == 19, "the smaller terminal is still used to its last line: \(switched.lines)")
            #expect(switched.lines.contains { $0.hasPrefix("+") && $0.hasSuffix("more active") }, "\(switched.lines)")
        }
    }
}
