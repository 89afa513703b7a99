import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// `ftp://` through the agent's API: the agent (an `fdl agent` process) registers the FTP
/// transport and fetches from vsftpd on 127.0.0.1.
@Suite("fdl agent: ftp:// URLs", .timeLimit(.minutes(10)))
struct AgentFTPTests {
    @Test("an ftp:// download submitted to the agent completes byte-exact")
    func downloadsFromVsftpd() async throws {
        let server = try VsftpdServer()
        defer { server.stop() }
        let data = try server.serve("agent/file.bin", sampleBytes(800_000, seed: 62))
        let agent = try AgentFixture()
        try await agent.start()
        do {
            let target = agent.downloads.appending(path: "file.bin")
            try await agent.client.submit(AgentDownloadRequest(id: "ftp", url: server.url("agent/file.bin").absoluteString,
                                                               destination: target.path))
            try await agent.waitUntil("ftp completes") { $0.first { $0.id == "ftp" }?.state == .completed }
            #expect(try Data(contentsOf: target) == data)
            #expect(server.commands.contains("RETR file.bin") || server.commands.contains("RETR agent/file.bin"), "\(server.commands)")
        } catch {
            await agent.remove()
            throw error
        }
        await agent.remove()
    }
}
