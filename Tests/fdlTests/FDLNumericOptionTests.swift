import FileDownloadTestSupport
import Foundation
import Testing

/// Every numeric option of `fdl`, out of range, is a usage error (exit 64) that names the option,
/// never a crash; nothing is created.
@Suite struct FDLNumericOptionTests {
    @Test(arguments: [
        // Seconds that become a Duration: too large to convert, infinite, not a number, zero,
        // negative, below the millisecond resolution, beyond seven days.
        ["--timeout", "1e19"], ["--timeout", "inf"], ["--timeout", "nan"], ["--timeout", "0"], ["--timeout=-5"],
        ["--timeout", "0.0000001"], ["--timeout", "604801"],
        // Counts that are Ints: out of range, beyond Int, not whole.
        ["--retry=-1"], ["--retry", "1001"], ["--retry", "99999999999999999999"], ["--retry", "2.5"],
        ["-j", "0"], ["-j", "65"], ["--jobs", "99999999999999999999"], ["--jobs", "1e3"],
        ["--max-connections-per-host", "0"], ["--max-connections-per-host", "65"],
    ])
    func anOutOfRangeNumberIsAUsageError(option: [String]) async throws {
        let result = try await FDLProcess.getInEmptyDirectory(option)
        #expect(result.status == 64, "\(option): status \(result.status), stderr: \(result.stderr)")
        let name = option[0].split(separator: "=")[0]
        #expect(result.stderr.contains(name == "--jobs" ? "-j" : name), "\(option): \(result.stderr)")
        #expect(result.created.isEmpty)
    }

    @Test(arguments: [
        ["agent", "--max-connections-per-host", "65"], ["agent", "--max-connections-per-host", "0"],
        ["worker", "--postgres", "postgres://fdl@127.0.0.1:9/db", "--lease", "nan"],
        ["worker", "--postgres", "postgres://fdl@127.0.0.1:9/db", "--lease", "86401"],
        ["worker", "--postgres", "postgres://fdl@127.0.0.1:9/db", "--poll", "0"],
        ["worker", "--postgres", "postgres://fdl@127.0.0.1:9/db", "--poll", "inf"],
    ])
    func theAgentAndTheWorkerRefuseOutOfRangeNumbersToo(arguments: [String]) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try await FDLProcess.run(arguments + (arguments[0] == "agent" ? ["--state", dir.path("state")] : ["-d", dir.path("files")]),
                                              environment: ["PGPASSWORD": "x"])
        #expect(result.status == 64, "\(arguments): status \(result.status), stderr: \(result.stderr)")
        #expect(result.stderr.contains(arguments[arguments.count - 2]), "\(arguments): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("state")) && !FileManager.default.fileExists(atPath: dir.path("files")))
    }

    @Test func theBoundsThemselvesAreAccepted() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("edge.bin", sampleBytes(20_000, seed: 31))
            let result = try await FDLProcess.run(["get", server.url("edge.bin"), "-d", out.path,
                                                   "--timeout", "604800", "--retry", "1000", "-j", "64"])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("edge.bin")) == data)
            let small = try await FDLProcess.run(["get", server.url("edge.bin"), "-d", out.path, "--timeout", "0.001",
                                                  "--retry", "0", "-j", "1"])
            #expect(small.status == 0, "stdout: \(small.stdout) stderr: \(small.stderr)")
        }
    }
}
