import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// aria2p (PyPI; a Python client and library for aria2's JSON-RPC, written by others for aria2)
/// drives an `fdl agent --tcp 0 --aria2-rpc` process through its own calls: adds downloads (with
/// `dir`, `out`, `split`, `checksum`) from an nginx, watches one run, pauses and resumes it,
/// removes it, purges the rest, reads the statistics, sets the overall limit; its notification
/// listener gets `onDownloadStart`, `Pause`, `Complete`, `Error` and `Stop`
/// (`scripts/aria2p-agent.sh`, `scripts/aria2p/drive_agent.py`; aria2p in a virtualenv under the
/// cache directory).
@Suite("fdl agent: aria2p drives the agent over aria2's JSON-RPC", .serialized)
struct Aria2pTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()  // Tests/FileDownloadAgentTests/Aria2/this file

    @Test("aria2p adds, watches, pauses, resumes, removes and purges, and hears every notification")
    func aria2pDrivesTheAgent() async throws {
        // big.bin: 16 MB at 256 KiB/s a response (ranges too), so it still runs when aria2p removes it.
        let files = try TemporaryDirectory("aria2p-files")
        defer { files.remove() }
        try sampleBytes(16_000_000, seed: 41).write(to: files.file("big.bin"))
        let small = sampleBytes(300_000, seed: 42)
        try small.write(to: files.file("small.bin"))
        let nginx = try await NginxServer(root: files.url, bytesPerSecond: 256 * 1024)
        defer { nginx.stop() }
        let agent = try WebAgent()
        do {
            try await agent.start(arguments: ["--aria2-rpc"])
            let out = agent.downloads.appending(path: "aria2p")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            // At most 5 minutes: the virtualenv's first install (seconds to a minute) and the run (about 5 s).
            let (status, output, errors) = try await ChildProcess.run([
                "/bin/bash", Self.root.appending(path: "scripts/aria2p-agent.sh").path,
                "--port", String(agent.port), "--state", agent.state, "--files", String(nginx.url("").dropLast()),
                "--out", out.path, "--small-sha256", sha256Hex(small),
            ], limit: .seconds(300))
            #expect(status == 0, "aria2p's run failed:\n\(output)\n\(errors)\nagent:\n\(agent.process?.stderr ?? "")")
            #expect(output.contains("aria2p drove the agent: all checks passed"), "\(output)")
            for check in ["onDownloadStart", "onDownloadPause", "onDownloadStart again", "onDownloadComplete",
                          "onDownloadError", "onDownloadStop", "the file is byte-exact", "nothing stopped is left",
                          "the WebSocket that called with the token heard every notification",
                          "the WebSocket without the token heard nothing",
                          "a WebSocket upgrade from a foreign origin is refused"] {
                #expect(output.contains("{\"check\": \"\(check)\", \"ok\": true"), "no \(check) in:\n\(output)")
            }
            // What aria2p did is what the agent holds: the small file byte-exact, nothing left.
            #expect(try Data(contentsOf: out.appending(path: "small.bin")) == small)
            #expect(try await agent.client.downloads().isEmpty)
            #expect(agent.process?.stderr.contains(try agent.token) == false, "the token was logged")
        } catch {
            await agent.remove()
            throw error
        }
        await agent.remove()
    }
}
