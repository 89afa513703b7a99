import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `fdl get -x 4` interrupted, then run again: the second run continues every segment from its
/// own bytes (the state store keeps them), not one stream from the contiguous prefix.
@Suite struct FDLSegmentResumeTests {
    @Test func anInterruptedSegmentedDownloadContinuesEverySegment() async throws {
        try await NginxServer.withServer(slowRate: "100k") { server, out in
            // 20 MB: above the 16 MiB threshold, so 4 connections. The first (no Range) is held to
            // 100 KB/s for minutes; the three ranged ones are not limited and finish at once.
            let size = 20_000_000
            let data = try server.serve("slow/big.bin", sampleBytes(size, seed: 41))
            let arguments = ["get", server.url("slow/big.bin"), "-d", out.path, "-x", "4", "--json"]
            let first = try FDLProcess(arguments)
            try await poll("three of the four segments are done", limit: .seconds(120), interval: .milliseconds(50)) {
                first.stdout.split(separator: "\n").contains { line in
                    line.contains(#""type":"progress""#) && (Self.received(line) ?? 0) >= Int64(size) * 7 / 10
                }
            }
            first.send(SIGINT)
            #expect(await first.exitStatus() == 130, "\(first.stderr)")
            // nginx logs the held first request once it notices the client has gone.
            try await poll("nginx logged the first run's request without a range") {
                server.accessLog.contains { $0.contains("big.bin") && $0.contains(#"range="-""#) }
            }
            let sentBefore = Self.bytesSent(server)

            let second = try await FDLProcess.run(arguments)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(try Data(contentsOf: out.file("big.bin")) == data)
            // Only what was missing was fetched again: at most the first segment (a quarter) and
            // what was in flight, not the 70 % and more that was already on disk.
            let sentAfter = Self.bytesSent(server) - sentBefore
            #expect(sentAfter < Int64(size) * 4 / 10, "\(sentAfter) bytes sent to the second run")
        }
    }

    /// `receivedBytes` of a `--json` event line.
    static func received(_ line: Substring) -> Int64? {
        guard let range = line.range(of: #""receivedBytes":"#) else { return nil }
        return Int64(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// Body bytes nginx sent so far (its access log's `bytes=`).
    static func bytesSent(_ server: NginxServer) -> Int64 {
        server.accessLog.reduce(0) { sum, line in
            guard let range = line.range(of: " bytes=") else { return sum }
            return sum + (Int64(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
    }
}
