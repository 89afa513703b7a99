import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get URL -o -` as a process in a shell pipe against nginx: the body on standard output,
/// byte-exact, over one request, progress on standard error, and nothing in the working directory.
@Suite struct FDLStandardOutputTests {
    /// Runs `fdl arguments... | cat > FILE` in `directory` with /bin/sh; returns fdl's exit status,
    /// the bytes that went through the pipe and the standard error of the pipeline.
    func pipe(_ arguments: [String], in directory: TemporaryDirectory, scratch: TemporaryDirectory) async throws
        -> (status: Int32?, bytes: Data, stderr: String) {
        let received = scratch.path("received.bin"), status = scratch.path("status")
        let script = #"{ "$0" "$@"; echo $? > "$STATUS_FILE"; } | cat > "$RECEIVED_FILE""#
        var environment = ProxyFreeEnvironment.of()
        environment["STATUS_FILE"] = status
        environment["RECEIVED_FILE"] = received
        let run = try await ChildProcess.run(["/bin/sh", "-c", script, try FDLProcess.executable] + arguments,
                                             environment: environment, directory: directory.path)
        let code = try? String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return (code.flatMap { Int32($0) }, (try? Data(contentsOf: URL(fileURLWithPath: received))) ?? Data(), run.stderr)
    }

    @Test func theBodyGoesToStandardOutputAndNothingToDisk() async throws {
        try await NginxServer.withServer { server, out in
            let data = try server.serve("stream.bin", sampleBytes(3_000_000, seed: 81))
            let scratch = try TemporaryDirectory()
            defer { scratch.remove() }
            let result = try await pipe(["get", server.url("stream.bin"), "-o", "-"], in: out, scratch: scratch)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.bytes == data, "\(result.bytes.count) bytes of \(data.count) on standard output")
            #expect(result.stderr.contains("-: 2.9 MiB of \(server.url("stream.bin")) written to standard output"), "\(result.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: out.path)
            #expect(left.isEmpty, "nothing written in the working directory: \(left)")
            let requests = server.accessLog.filter { $0.contains("/stream.bin") }
            #expect(requests.count == 1 && requests[0].hasPrefix("200 "), "one request, no range: \(requests)")
        }
    }

    @Test func aFailureIsReportedOnStandardErrorWithNothingOnStandardOutput() async throws {
        try await NginxServer.withServer { server, out in
            let scratch = try TemporaryDirectory()
            defer { scratch.remove() }
            let result = try await pipe(["get", server.url("missing.bin"), "-o", "-"], in: out, scratch: scratch)
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.bytes.isEmpty, "\(result.bytes.count) bytes on standard output")
            #expect(result.stderr.contains("-: FAILED (notFound)"), "\(result.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: out.path)
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test func optionsThatNeedAFileAreRefused() async throws {
        let result = try await FDLProcess.run(["get", "http://127.0.0.1:9/x", "-o", "-", "--sha256", String(repeating: "a", count: 64)])
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("cannot go with --sha256"), "\(result.stderr)")
        let two = try await FDLProcess.run(["get", "http://127.0.0.1:9/x", "http://127.0.0.1:9/y", "-o", "-"])
        #expect(two.status == 64, "stderr: \(two.stderr)")
        #expect(two.stderr.contains("give exactly one URL"), "\(two.stderr)")
    }

    @Test func theHelpSaysWhatDashMeans() async throws {
        let result = try await FDLProcess.run(["get", "--help"])
        // The help wraps its lines: compared with single spaces.
        let help = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("-o - writes the body to standard output as it arrives (one connection, "
                              + "progress on standard error, no resume, no retry)"), "\(result.stdout)")
    }
}
