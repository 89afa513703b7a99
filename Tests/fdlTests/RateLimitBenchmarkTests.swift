import FileDownloadTestSupport
import Foundation
import Testing

/// `Benchmarks/rate-limit.sh` runs at a tiny size (1 MiB, two connections, a limit it reaches in a
/// fraction of a second) with this build's fdl: every tool's row is there and byte-exact. The
/// figures themselves are the benchmark's, not the test's (no timing is asserted).
@Suite("Benchmarks/rate-limit.sh at a tiny size", .timeLimit(.minutes(5)))
struct RateLimitBenchmarkTests {
    @Test("the rate-limit benchmark runs fdl, curl and aria2c against its nginx and prints a byte-exact row for each")
    func runsTiny() async throws {
        let root = FDLInstallTests.packageRoot
        let scratch = try TemporaryDirectory("fdl-rate-bench")
        defer { scratch.remove() }
        let log = scratch.file("output.txt").path
        var environment = ProxyFreeEnvironment.of()
        environment["FDL"] = try FDLProcess.executable
        environment["SIZES_MIB"] = "1"
        environment["CONNECTIONS"] = "2"
        environment["LIMIT"] = "8388608"
        environment["TOOL_TIMEOUT"] = "60"
        let status = try await ChildProcess.run(["/bin/bash", "-c", "bash Benchmarks/rate-limit.sh > '\(log)' 2>&1"],
                                                environment: environment, directory: root, limit: .seconds(240)).status
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(status == 0, "\(output)")
        for tool in ["fdl get --limit-rate -x 1", "fdl get --limit-rate -x 2", "curl --limit-rate",
                     "aria2c --max-download-limit -x1 -s1", "aria2c --max-download-limit -x2 -s2"] {
            let row = output.split(separator: "\n").first { $0.hasPrefix("| 1 MiB | \(tool) |") }
            #expect(row?.hasSuffix("| ok |") == true, "no byte-exact row for \(tool) in:\n\(output)")
        }
    }
}
