import FileDownloadTestSupport
import Foundation
import Testing

/// `Benchmarks/s3.sh` runs at a tiny size (1 MiB, two connections) with this build's fdl against
/// its moto server: every tool's row is there and byte-exact. The figures themselves are the
/// benchmark's, not the test's (no timing is asserted).
@Suite("Benchmarks/s3.sh at a tiny size", .timeLimit(.minutes(10)))
struct S3BenchmarkTests {
    @Test("the S3 benchmark runs fdl and aws s3 cp against its moto server and prints a byte-exact row for each")
    func runsTiny() async throws {
        let root = FDLInstallTests.packageRoot
        let scratch = try TemporaryDirectory("fdl-s3-bench")
        defer { scratch.remove() }
        let log = scratch.file("output.txt").path
        var environment = ProxyFreeEnvironment.of()
        environment["FDL"] = try FDLProcess.executable
        environment["SIZE_MIB"] = "1"
        environment["CONNECTIONS"] = "2"
        environment["TOOL_TIMEOUT"] = "120"
        let status = try await ChildProcess.run(["/bin/bash", "-c", "bash Benchmarks/s3.sh > '\(log)' 2>&1"],
                                                environment: environment, directory: root, limit: .seconds(540)).status
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(status == 0, "\(output)")
        for tool in ["fdl get -x 1", "fdl get -x 2", "aws s3 cp"] {
            let row = output.split(separator: "\n").first { $0.hasPrefix("| 1 MiB | \(tool) |") }
            #expect(row?.hasSuffix("| ok |") == true, "no byte-exact row for \(tool) in:\n\(output)")
        }
    }
}
