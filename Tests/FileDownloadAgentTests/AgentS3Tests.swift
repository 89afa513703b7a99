import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// `s3://` through the agent's API: the agent registers the S3 transport and signs with the keys
/// of its own environment; a download's record and events never carry them.
@Suite("fdl agent: s3:// URLs", .timeLimit(.minutes(10)))
struct AgentS3Tests {
    @Test("an s3:// download submitted to the agent completes byte-exact, signed with the agent's environment, no key in its state")
    func downloadsWithTheAgentsKeys() async throws {
        let server = try S3Server()
        defer { server.stop() }
        let data = sampleBytes(600_000, seed: 61)
        try server.put(data, bucket: "fdl", key: "agent/file.bin")
        var environment: [String: String?] = ["AWS_PROFILE": nil, "AWS_SESSION_TOKEN": nil]
        for (name, value) in server.environment() { environment[name] = value }
        let agent = try AgentFixture(environment: environment)
        do {
            try await agent.start()
            let target = agent.downloads.appending(path: "file.bin")
            try await agent.client.submit(AgentDownloadRequest(id: "s3", url: "s3://fdl/agent/file.bin", destination: target.path))
            try await agent.waitUntil("s3 completes") { $0.first { $0.id == "s3" }?.state == .completed }
            #expect(try Data(contentsOf: target) == data)
            // Nothing the agent keeps holds the secret.
            let stateFiles = FileManager.default.enumerator(atPath: agent.state)?.compactMap { $0 as? String } ?? []
            for file in stateFiles {
                let contents = (try? Data(contentsOf: URL(fileURLWithPath: agent.state).appending(path: file))) ?? Data()
                #expect(contents.range(of: Data(server.secretAccessKey.utf8)) == nil, "the secret is in \(file)")
            }
        } catch {
            await agent.remove()
            throw error
        }
        await agent.remove()
    }
}
