import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// Where the agent's API lets a download write (the library's `DestinationPolicy`, as fdl and the
/// fleet): a user's file is kept, a link planted between add and start is not followed, and the
/// agent's own socket and state are no destination.
@Suite("fdl agent: destinations", .serialized)
struct AgentDestinationTests {
    @Test("a user's file at the destination is kept: the download is saved as NAME.1.EXT; overwrite: true replaces it")
    func existingFileKept() async throws {
        try await NginxServer.withServer { nginx, _ in
            let data = try nginx.serve("kept/file.bin", sampleBytes(50_000, seed: 31))
            try await AgentFixture.with { agent in
                let mine = agent.downloads.appending(path: "file.bin")
                try Data("my own notes".utf8).write(to: mine)
                let added = try await agent.client.submit(AgentDownloadRequest(id: "k", url: nginx.url("kept/file.bin"),
                                                                               destination: mine.path))
                #expect(added.destination.lastPathComponent == "file.1.bin", "\(added.destination)")
                // Without a destination: the downloads directory and the URL's name, kept the same way.
                let plain = try await agent.client.submit(AgentDownloadRequest(id: "p", url: nginx.url("kept/file.bin")))
                #expect(plain.destination.lastPathComponent == "file.2.bin", "\(plain.destination)")
                try await agent.waitUntil("both complete") { list in
                    ["k", "p"].allSatisfy { id in list.first { $0.id == id }?.state == .completed }
                }
                #expect(try Data(contentsOf: mine) == Data("my own notes".utf8), "the user's file is untouched")
                #expect(try Data(contentsOf: agent.downloads.appending(path: "file.1.bin")) == data)
                #expect(try Data(contentsOf: agent.downloads.appending(path: "file.2.bin")) == data)

                let replacing = try await agent.client.submit(AgentDownloadRequest(id: "r", url: nginx.url("kept/file.bin"),
                                                                                   destination: mine.path, overwrite: true))
                #expect(replacing.destination.path == mine.path)
                try await agent.waitUntil("r completes") { $0.first { $0.id == "r" }?.state == .completed }
                #expect(try Data(contentsOf: mine) == data, "replaced only when asked")
            }
        }
    }

    @Test("a symbolic link planted at a subdirectory, between add and start or before the add, is not followed",
          arguments: [false, true])
    func plantedLinkNotFollowed(_ beforeAdd: Bool) async throws {
        let outside = try TemporaryDirectory("outside")
        defer { outside.remove() }
        try await NginxServer.withServer { nginx, _ in
            _ = try nginx.serve("link/file.bin", sampleBytes(20_000, seed: 32))
            try await AgentFixture.with { agent in
                let sub = agent.downloads.appending(path: "sub")
                if beforeAdd { try FileManager.default.createSymbolicLink(at: sub, withDestinationURL: outside.url) }
                try await agent.client.submit(AgentDownloadRequest(id: "l", url: nginx.url("link/file.bin"),
                                                                   destination: sub.appending(path: "file.bin").path, start: false))
                if !beforeAdd { try FileManager.default.createSymbolicLink(at: sub, withDestinationURL: outside.url) }
                try await agent.client.start(id: "l")
                let list = try await agent.waitUntil("l fails") { $0.first { $0.id == "l" }?.state == .failed }
                let info = try #require(list.first { $0.id == "l" })
                #expect(info.lastErrorCode == .invalidDestination, "\(String(describing: info.lastError))")
                #expect(try FileManager.default.contentsOfDirectory(atPath: outside.url.path).isEmpty, "nothing written through the link")
            }
        }
    }

    @Test("the agent's socket, lock and database are refused as destinations (400 bad-destination) and the agent stays reachable")
    func ownFilesRefused() async throws {
        try await AgentFixture.with { agent in
            for path in [agent.socket, agent.state + "/agent.lock", agent.state + "/agent.sqlite", agent.state + "/agent.sqlite-wal",
                         agent.state + "/new.bin"] {
                let refused = await #expect(throws: DownloadAgentClientError.self, "\(path)") {
                    try await agent.client.submit(AgentDownloadRequest(id: "own", url: "http://127.0.0.1:9/x", destination: path,
                                                                       start: false))
                }
                #expect(refused?.status == 400 && refused?.error == "bad-destination", "\(String(describing: refused))")
            }
            let own = try await agent.client.info(of: "own")
            let status = try await agent.client.status()
            #expect(own == nil)
            #expect(status.downloads == 0, "the agent still answers on its socket")
            #expect(!FileManager.default.fileExists(atPath: agent.state + "/new.bin.part"))
        }
    }

    @Test("a destination whose file name has a newline, TAB, ESC or a leading dot is refused (400 bad-destination), as fdl refuses such a name")
    func controlCharacterNamesRefused() async throws {
        try await AgentFixture.with { agent in
            for name in ["a\nb.bin", "a\tb.bin", "\u{1B}[2Jx.bin", ".hidden"] {
                let path = agent.downloads.appending(path: name).path
                let refused = await #expect(throws: DownloadAgentClientError.self, "\(name.debugDescription)") {
                    try await agent.client.submit(AgentDownloadRequest(id: "n", url: "http://127.0.0.1:9/x", destination: path,
                                                                       start: false))
                }
                #expect(refused?.status == 400 && refused?.error == "bad-destination", "\(String(describing: refused))")
                #expect(refused?.message.contains("\u{1B}") == false)
            }
            let status = try await agent.client.status()
            #expect(status.downloads == 0)
        }
    }
}
