import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// The web page driven in a real headless Chromium (Debian's `chromium` and `chromium-driver`),
/// by `drive_page.py` through WebDriver, as a person would: log in with the URL `--open`
/// printed, add a slow download through the form (its first URL dead, nginx as the mirror typed
/// into the form's mirrors field), watch its bar move, pause it with
/// the keyboard, resume it, see it complete, see a failed download's error in words. The file is
/// then checked byte for byte.
///
/// The screenshots (1280x800, 400x800) go to a temporary directory, or, when the environment
/// variable `FDL_UI_SCREENSHOTS` names a directory, there (`FDL_UI_SCREENSHOTS=$PWD/docs` makes
/// the ones in docs/).
@Suite("fdl agent: the web page in headless Chromium", .serialized)
struct AgentWebPageTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("drive_page.py").path
    /// The id the page gives the slow download: a space, an accent, `?`, `#`, `%` and `+`, which
    /// its requests escape.
    static let escapedID = "slow é?#%+ 1"

    @Test("add a slow download in the page (its id with a space, an accent, ?, #, % and +), watch it move, pause, resume, complete; the file is byte-exact; the overall limit set through the API is shown, and set and cleared with the keyboard")
    func drivePage() async throws {
        // The page pauses and resumes it by this id: the agent decodes what encodeURIComponent sent.
        try WebAgent.requireChromium()
        try await NginxServer.withServer(slowRate: "256k") { server, _ in
            let content = try server.serve("slow/big.bin", sampleBytes(3_000_000, seed: 15))
            try await WebAgent.with { agent in
                let scratch = try TemporaryDirectory("agent-web-shots")
                defer { scratch.remove() }
                let shots = ProcessInfo.processInfo.environment["FDL_UI_SCREENSHOTS"] ?? scratch.path
                try await agent.client.setLimit(64 << 20)
                let (status, output, errors) = try await CommandRun.run([
                    "/usr/bin/timeout", "300", "/usr/bin/env", "python3", Self.script,
                    "--login", agent.loginURL, "--url", server.url("slow/big.bin"), "--id", Self.escapedID,
                    "--missing", server.url("missing.bin"), "--shots", shots, "--limit", String(64 << 20),
                ])
                #expect(status == 0, "drive_page.py: \(output) \(errors)")
                guard status == 0 else { return }
                let file = agent.downloads.appendingPathComponent("big.bin")
                #expect(try Data(contentsOf: file) == content)
                #expect(try await agent.client.limit() == 32 << 20, "the limit the page set")
                // The page paused the first transfer in the middle, and resumed it with a range.
                let log = server.accessLog.filter { $0.contains("/slow/big.bin") }
                #expect(log.count >= 2 && log.last?.contains("range=\"bytes=") == true, "\(log)")
                for (name, width) in [("agent-ui-1280.png", 1280), ("agent-ui-400.png", 400)] {
                    let png = try Data(contentsOf: URL(fileURLWithPath: shots + "/" + name))
                    #expect(Self.size(ofPNG: png) == [width, 800], "\(name)")
                }
                #expect(agent.process?.stderr.contains(try agent.token) == false)
            }
        }
    }

    @Test("an open page reconnects after the agent restarts on the same port, and shows what happened since")
    func reconnectsAfterRestart() async throws {
        try WebAgent.requireChromium()
        try await WebAgent.with { agent in
            let ready = agent.directory.path("page-ready")
            let log = try agent.directory.createFile("drive.log")
            let script = try ChildProcess("/usr/bin/timeout", ["300", "/usr/bin/env", "python3", Self.script, "--login", agent.loginURL,
                                                               "--id", "after-restart", "--ready", ready],
                                          output: .file(log), error: .file(log))
            // Polled, bounded: the script announces that the page is up only by this file.
            let deadline = ContinuousClock.now + .seconds(180)
            while !FileManager.default.fileExists(atPath: ready) && script.isRunning && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(FileManager.default.fileExists(atPath: ready), "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            let port = agent.port
            #expect(await agent.stop() == 0)
            try await agent.start(port: port)
            try await DownloadAgentClient(socketPath: agent.socket).submit(
                AgentDownloadRequest(id: "after-restart", url: "http://127.0.0.1:9/x", start: false))
            let status = try await script.wait(limit: .seconds(360))
            #expect(status == 0, "drive_page.py: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
    }

    /// The width and height in a PNG's header.
    static func size(ofPNG data: Data) -> [Int] {
        guard data.count >= 24 else { return [] }
        let bytes = [UInt8](data[16..<24])
        func number(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return [number(0), number(4)]
    }
}
