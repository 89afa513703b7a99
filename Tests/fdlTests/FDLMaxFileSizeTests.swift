import FileDownloadTestSupport
import Foundation
import Testing

/// `--max-filesize SIZE` as a process against the fault server: a larger announced size fails
/// before the body, a body without a size (an endless chunked one) stops at the limit; either way
/// the download fails with its own code, once (not retried), and leaves nothing behind.
@Suite struct FDLMaxFileSizeTests {
    /// Runs `body` with a fault server over `root` and an output directory.
    func withServer(_ body: (FaultServer, TemporaryDirectory, TemporaryDirectory) async throws -> Void) async throws {
        try await FaultServer.withRootAndOutput(body)
    }

    /// The names in `out` other than fdl's state directory.
    func leftovers(_ out: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != ".fdl" }
    }

    @Test func aLargerAnnouncedSizeFailsBeforeTheBody() async throws {
        try await withServer { server, root, out in
            try sampleBytes(1_000_000, seed: 71).write(to: root.file("big.bin"))
            let result = try await FDLProcess.run(["get", server.address("big.bin"), "-d", out.path, "--max-filesize", "100K"])
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stdout.contains("big.bin: FAILED (maxFileSizeExceeded)"), "\(result.stdout)")
            #expect(result.stdout.contains("the server announced 1000000 bytes, more than the limit of 102400 bytes"),
                    "\(result.stdout)")
            #expect(result.stdout.contains("--max-filesize"), "the hint names the option: \(result.stdout)")
            #expect(try server.stats().requests == 1, "not retried")
            let left = try leftovers(out)
            #expect(left.isEmpty, "nothing at the destination: \(left)")
        }
    }

    @Test func anEndlessBodyStopsAtTheLimit() async throws {
        try await withServer { server, root, out in
            try sampleBytes(64 * 1024, seed: 72).write(to: root.file("endless.bin"))
            let result = try await FDLProcess.run(["get", server.address("endless.bin", "endless=1"), "-d", out.path,
                                                   "--max-filesize", "1M", "--json"])
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            let failed = result.stdout.split(separator: "\n").first { $0.contains("\"type\":\"failed\"") }.map(String.init) ?? ""
            #expect(failed.contains("maxFileSizeExceeded"), "\(result.stdout)")
            #expect(failed.contains("more than the limit of 1048576 bytes without announcing the size"), "\(failed)")
            #expect(try server.stats().requests == 1, "not retried")
            let left = try leftovers(out)
            #expect(left.isEmpty, "nothing at the destination: \(left)")
        }
    }

    @Test func aFileWithinTheLimitIsDownloaded() async throws {
        try await withServer { server, root, out in
            let data = sampleBytes(100 * 1024, seed: 73)
            try data.write(to: root.file("fits.bin"))
            let result = try await FDLProcess.run(["get", server.address("fits.bin"), "-d", out.path, "--max-filesize", "100K"])
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("fits.bin")) == data)
        }
    }

    @Test func aSizeThatIsNotOneIsAUsageError() async throws {
        let result = try await FDLProcess.run(["get", "http://127.0.0.1:9/x", "--max-filesize", "ten"])
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--max-filesize 'ten' is not a size"), "\(result.stderr)")
    }
}
