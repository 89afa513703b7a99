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
    ])
    func anOutOfRangeNumberIsAUsageError(option: [String]) async throws {
        let result = try await FDLProcess.getInEmptyDirectory(option)
        #expect(result.status == 64, "\(option): status \(result.status), stderr: \(result.stderr)")
        let name = option[0].split(separator: "=")[0]
        #expect(result.stderr.contains(name == "--jobs" ? "-j" : name), "\(option): \(result.stderr)")
        #expect(result.created.isEmpty)
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
