@testable import FileDownloadCLI
import FileDownloadTestSupport
import Foundation
import Testing

/// The bytes `fdl get`'s log, `fdl list` and `fdl watch` show for one download are one number:
/// the downloader's (`DownloadInfo.progress`, the paused event's `ResumeData.bytesDone`), not a
/// checkpoint of the store or the contiguous prefix of the segments; a paused download has no
/// speed.
@Suite struct FDLNumbersTests {
    /// The bytes of `fdl list --json`'s line for `id`.
    static func listed(_ id: String, in out: TemporaryDirectory) async throws -> Int64? {
        let list = try await FDLProcess.run(["list", "-d", out.path, "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let line = list.stdout.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["id"] as? String == id }
        return (line?["receivedBytes"] as? NSNumber)?.int64Value
    }

    /// The bytes of the last progress line of `id` in a plain log (`big.bin: 12% 2.4 MiB/20.0 MiB ...`).
    static func lastProgress(_ id: String, in log: String) -> Double? {
        guard let line = log.split(separator: "\n").last(where: { $0.hasPrefix("\(id): ") && $0.contains("% ") }) else { return nil }
        let words = line.split(separator: " ")
        guard words.count > 3, let value = Double(words[2]) else { return nil }
        let unit = words[3].prefix { $0 != "/" }
        let scale: Double = ["B": 1, "KiB": 1024, "MiB": 1_048_576, "GiB": 1_073_741_824][String(unit)] ?? 0
        return value * scale
    }

    @Test func listWatchAndTheLogShowTheDownloadersBytesAndAPausedDownloadNoSpeed() async throws {
        // 24 MB over four connections at 100 KB/s each: minutes, paused after a few seconds.
        try await NginxServer.withServer(slowRate: "100k") { server, out in
            try server.serve("slow/big.bin", sampleBytes(24_000_000, seed: 151))
            let running = try FDLProcess(["get", server.url("slow/big.bin"), "-d", out.path, "-x", "4"])
            try await running.waitForOutput(containing: "big.bin: downloading")
            let watch = try FDLProcess(["watch", "big.bin", "-d", out.path])
            try await watch.waitForOutput(containing: "watching big.bin")
            // Running: `fdl list` shows at least what the run printed before it was asked (the
            // store's checkpoint, every 2 s, lags behind).
            // Each `fdl list` takes a while: asked again and again until it was compared with five
            // different progress lines (bounded in time).
            var compared = Set<Double>()
            try await poll("`fdl list` compared with five progress lines", limit: .seconds(120), interval: .milliseconds(50)) {
                let before = Self.lastProgress("big.bin", in: running.stdout)
                let listed = try? await Self.listed("big.bin", in: out)
                if let printed = before, let listed = listed ?? nil {
                    #expect(Double(listed) >= printed - 52_429, "list \(listed) behind the log's \(printed)")
                    compared.insert(printed)
                }
                return compared.count >= 5
            }
            #expect(try await FDLProcess.run(["pause", "big.bin", "-d", out.path]).status == 0)
            try await running.waitForOutput(containing: "this run waits for it")
            try await watch.waitForOutput(containing: "big.bin: paused at")
            // Paused: one number everywhere.
            let listed = try #require(try await Self.listed("big.bin", in: out))
            let shown = Formatting.bytes(listed)
            #expect(running.stdout.contains("big.bin: paused at \(shown)\n"), "list: \(shown); run: \(running.stdout)")
            #expect(watch.stdout.contains("big.bin: paused at \(shown)\n"), "list: \(shown); watch: \(watch.stdout)")
            let table = try await FDLProcess.run(["list", "-d", out.path])
            #expect(table.stdout.contains("paused") && table.stdout.contains(shown), "\(table.stdout)")
            // No line after the pause gives the paused download a speed.
            for log in [running.stdout, watch.stdout] {
                let after = log.components(separatedBy: "big.bin: paused at").last ?? ""
                #expect(!after.contains("/s"), "a speed after the pause: \(after)")
            }
            #expect(try await FDLProcess.run(["cancel", "big.bin", "-d", out.path]).status == 0)
            let runStatus = try await Task { await running.exitStatus() }.value(within: 30, what: "fdl get to exit after cancel")
            #expect(runStatus == 3, "stdout: \(running.stdout)")
            let watchStatus = try await Task { await watch.exitStatus() }.value(within: 30, what: "fdl watch to exit after cancel")
            #expect(watchStatus == 3, "stdout: \(watch.stdout)")
        }
    }
}
