import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// Mirrors through the agent's API (`"mirrors"` of `POST /v1/downloads`): tried when the first URL
/// fails, shown by the list and by `GET /v1/downloads/{id}`, and given no secret header field
/// unless they share the first URL's origin.
@Suite("fdl agent: mirrors", .serialized)
struct AgentMirrorTests {
    @Test("a download whose first URL is dead completes from its mirror, byte-exact; the secret header stays with the first origin")
    func deadFirstURLGoodMirror() async throws {
        let refusing = try RefusingPort()
        try await NginxServer.withServer { nginx, _ in
            let data = try nginx.serve("mirror/file.bin", sampleBytes(400_000, seed: 21))
            try await AgentFixture.with { agent in
                let target = agent.downloads.appending(path: "file.bin")
                let dead = "http://127.0.0.1:\(refusing.port)/file.bin"
                let mirror = nginx.url("mirror/file.bin")
                let added = try await agent.client.submit(AgentDownloadRequest(
                    id: "m", url: dead, destination: target.path, headers: ["X-Api-Key": "s3cret"],
                    secretHeaders: ["X-Api-Key"], mirrors: [mirror]))
                #expect(added.mirrors.map(\.absoluteString) == [mirror])
                try await agent.waitUntil("m completes") { $0.first { $0.id == "m" }?.state == .completed }
                #expect(try Data(contentsOf: target) == data)
                let info = try #require(try await agent.client.info(of: "m"))
                #expect(info.url.absoluteString == dead && info.mirrors.map(\.absoluteString) == [mirror])
                let (status, listed) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/downloads"])
                #expect(status == 200 && listed.contains("\"mirrors\":[\"\(mirror)\"]"), "\(listed)")
                // The mirror is another origin (another port): the secret field was not sent there.
                let requests = nginx.accessLog.filter { $0.contains("/mirror/file.bin") }
                #expect(!requests.isEmpty && requests.allSatisfy { $0.contains("api_key=\"-\"") }, "\(requests)")
            }
        }
        withExtendedLifetime(refusing) {}
    }

    @Test("a mirror of the first URL's origin gets the secret header; a bad mirror is a 400 bad-mirror")
    func sameOriginAndBadMirror() async throws {
        try await NginxServer.withServer { nginx, _ in
            let data = try nginx.serve("same/file.bin", sampleBytes(100_000, seed: 22))
            try await AgentFixture.with { agent in
                let target = agent.downloads.appending(path: "same.bin")
                try await agent.client.submit(AgentDownloadRequest(
                    id: "s", url: nginx.url("same/missing.bin"), destination: target.path,
                    headers: ["X-Api-Key": "s3cret"], secretHeaders: ["X-Api-Key"], mirrors: [nginx.url("same/file.bin")]))
                try await agent.waitUntil("s completes") { $0.first { $0.id == "s" }?.state == .completed }
                #expect(try Data(contentsOf: target) == data)
                let requests = nginx.accessLog.filter { $0.contains("/same/file.bin") }
                #expect(!requests.isEmpty && requests.allSatisfy { $0.contains("api_key=\"s3cret\"") }, "\(requests)")

                let refused = await #expect(throws: DownloadAgentClientError.self) {
                    try await agent.client.submit(AgentDownloadRequest(id: "b", url: nginx.url("x"), mirrors: ["not a url"]))
                }
                #expect(refused?.status == 400 && refused?.error == "bad-mirror", "\(String(describing: refused))")
                #expect(try await agent.client.info(of: "b") == nil)
            }
        }
    }
}
