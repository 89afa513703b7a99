import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get -c` on a file fdl did not make, as a process against nginx: a file that is already
/// whole stays as it is, and a continuation by the birth-time rule says so.
@Suite struct FDLPartialFileTests {
    func setModificationTime(_ path: String, to date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }

    /// The whole file with the server's time (what `wget` or `curl -R` leave when they finish):
    /// nginx's 416 says it has every byte; fdl keeps it, says it is complete, and exits 0.
    @Test func aFileThatIsAlreadyWholeIsKeptAndReportedComplete() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("w.bin", sampleBytes(120_000, seed: 41))
            let time = Date(timeIntervalSince1970: 1_600_000_000)
            try setModificationTime(server.root.appendingPathComponent("w.bin").path, to: time)
            try data.write(to: out.file("w.bin"))
            try setModificationTime(out.path("w.bin"), to: time)

            let run = try await FDLProcess.run(["get", server.url("w.bin"), "-d", out.path, "-c"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stdout.contains("is its whole file"), "stdout: \(run.stdout)")
            #expect(run.stdout.contains("w.bin: already complete at \(out.path("w.bin"))"), "stdout: \(run.stdout)")
            #expect(!run.stdout.contains("does not send ranges"), "stdout: \(run.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out.path("w.1.bin")), "no second copy")
            #expect(try Data(contentsOf: out.file("w.bin")) == data)
            let whole = server.accessLog.filter { $0.hasPrefix("200 ") && $0.contains("GET /w.bin") }
            #expect(whole.isEmpty, "nothing downloaded: \(server.accessLog)")
        }
    }

    /// A whole file of another version (same length, the server's file changed after the file
    /// was made): not complete; kept, and the download starts over under the next name.
    @Test func aWholeFileOfAnotherVersionIsNotTakenAsComplete() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("v.bin", sampleBytes(120_000, seed: 42))
            let other = sampleBytes(120_000, seed: 43)
            try other.write(to: out.file("v.bin"))
            try setModificationTime(server.root.appendingPathComponent("v.bin").path, to: Date(timeIntervalSinceNow: 86_400))

            let run = try await FDLProcess.run(["get", server.url("v.bin"), "-d", out.path, "-c"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stdout.contains("v.bin: not continued (-c)"), "stdout: \(run.stdout)")
            #expect(try Data(contentsOf: out.file("v.bin")) == other)
            #expect(try Data(contentsOf: out.file("v.1.bin")) == data)
        }
    }

    /// A partial file made after the server's file was last modified (curl killed midway, or a
    /// copy of another version's partial file: the birth time cannot tell): continued, with a line
    /// that names the rule and the option that checks the result.
    @Test func aContinuationByBirthTimeSaysSoAndNamesSha256() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("b.bin", sampleBytes(200_000, seed: 44))
            try setModificationTime(server.root.appendingPathComponent("b.bin").path, to: Date(timeIntervalSinceNow: -86_400))
            try data.prefix(70_000).write(to: out.file("b.bin"))

            let run = try await FDLProcess.run(["get", server.url("b.bin"), "-d", out.path, "-c"])
            #expect(run.status == 0, "stdout: \(run.stdout) stderr: \(run.stderr)")
            #expect(run.stdout.contains("b.bin: continued by the birth-time rule only"), "stdout: \(run.stdout)")
            #expect(run.stdout.contains("--sha256 HASH checks the result"), "stdout: \(run.stdout)")
            #expect(try Data(contentsOf: out.file("b.bin")) == data)

            // With the server's time on the partial file, the stronger rule continues it: no such line.
            let exact = Date(timeIntervalSince1970: 1_600_000_000)
            let again = try server.serve("e.bin", sampleBytes(200_000, seed: 45))
            try setModificationTime(server.root.appendingPathComponent("e.bin").path, to: exact)
            try again.prefix(70_000).write(to: out.file("e.bin"))
            try setModificationTime(out.path("e.bin"), to: exact)
            let plain = try await FDLProcess.run(["get", server.url("e.bin"), "-d", out.path, "-c"])
            #expect(plain.status == 0, "stdout: \(plain.stdout) stderr: \(plain.stderr)")
            #expect(plain.stdout.contains("continuing it (-c)"), "stdout: \(plain.stdout)")
            #expect(!plain.stdout.contains("birth-time rule"), "stdout: \(plain.stdout)")
        }
    }
}
