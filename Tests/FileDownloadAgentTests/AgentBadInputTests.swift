import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Requests the agent must refuse, each with a status and a message a person can act on, after
/// which it goes on serving; and the privacy of its socket.
@Suite("fdl agent: bad input and other users", .serialized)
struct AgentBadInputTests {
    @Test("every bad request is a 4xx with {error, message}, and the agent still serves")
    func badRequests() async throws {
        try await AgentFixture.with { agent in
            let socket = agent.socket
            let target = agent.downloads.appending(path: "x").path
            let cases: [(what: String, arguments: [String], status: Int, error: String, phrase: String)] = [
                ("malformed JSON", ["-X", "POST", "-d", "{\"id\": ", "http://agent/v1/downloads"], 400, "bad-json", "malformed JSON"),
                ("a field missing", ["-X", "POST", "-d", "{\"id\":\"a\"}", "http://agent/v1/downloads"], 400, "bad-json", "\"url\" is missing"),
                ("a field of the wrong type", ["-X", "POST", "-d", "{\"id\":1,\"url\":\"http://h/f\"}", "http://agent/v1/downloads"],
                 400, "bad-json", "expected String"),
                ("an oversized body", ["-X", "POST", "--data-binary", "@-", "http://agent/v1/downloads"], 413, "body-too-large", "larger than 65536"),
                ("a URL that is not one", ["-X", "POST", "-d", "{\"id\":\"a\",\"url\":\"not a url\"}", "http://agent/v1/downloads"],
                 400, "bad-url", "not an absolute URL"),
                ("a scheme without transport", ["-X", "POST", "-d", "{\"id\":\"a\",\"url\":\"gopher://h/f\"}", "http://agent/v1/downloads"],
                 400, "bad-url", "gopher"),
                ("a relative destination", ["-X", "POST", "-d", "{\"id\":\"a\",\"url\":\"http://127.0.0.1:9/f\",\"destination\":\"f\"}",
                                            "http://agent/v1/downloads"], 400, "bad-destination", "not an absolute path"),
                ("a destination that is a directory", ["-X", "POST", "-d", "{\"id\":\"a\",\"url\":\"http://127.0.0.1:9/f\",\"destination\":\"\(agent.downloads.path)/\"}",
                                                       "http://agent/v1/downloads"], 400, "bad-destination", "is a directory"),
                ("an id with a slash", ["-X", "POST", "-d", "{\"id\":\"a/b\",\"url\":\"http://127.0.0.1:9/f\"}", "http://agent/v1/downloads"],
                 400, "bad-id", "cannot contain \"/\""),
                ("a bad digest", ["-X", "POST", "-d", "{\"id\":\"a\",\"url\":\"http://127.0.0.1:9/f\",\"sha256\":\"xyz\"}",
                                  "http://agent/v1/downloads"], 400, "bad-sha256", "64 hexadecimal"),
                ("an unknown id", ["http://agent/v1/downloads/nobody"], 404, "unknown-id", "nobody"),
                ("pausing an unknown id", ["-X", "POST", "http://agent/v1/downloads/nobody/pause"], 404, "unknown-id", "nobody"),
                ("an unknown path", ["http://agent/v2/downloads"], 404, "http-404", "under /v1"),
                ("a bad Last-Event-ID", ["-H", "Last-Event-ID: soon", "http://agent/v1/events"], 400, "bad-since", "soon"),
            ]
            for item in cases {
                var arguments = item.arguments
                if item.what == "an oversized body" {
                    let big = try agent.directory.createFile("big.json", contents: Data(repeating: UInt8(ascii: " "), count: 200_000))
                    arguments[3] = "@" + big
                }
                let (status, body) = try await CommandRun.curl(socket: socket, arguments)
                #expect(status == item.status, "\(item.what): \(body)")
                let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]
                #expect(json?["error"] == item.error, "\(item.what): \(body)")
                #expect(json?["message"]?.contains(item.phrase) == true, "\(item.what): \(body)")
            }
            // A duplicate id: 409, and the first download is untouched.
            let request = AgentDownloadRequest(id: "dup", url: "http://127.0.0.1:9/f", destination: target, start: false)
            try await agent.client.submit(request)
            let duplicate = await #expect(throws: DownloadAgentClientError.self) { try await agent.client.submit(request) }
            #expect(duplicate?.status == 409 && duplicate?.error == "duplicate-id" && duplicate?.message.contains("dup") == true)
            #expect(try await agent.client.info(of: "dup")?.state == .notStarted)
            // Forgetting a running download is refused; forgetting an unknown one is a 404.
            let unknown = await #expect(throws: DownloadAgentClientError.self) { try await agent.client.remove("nobody") }
            #expect(unknown?.status == 404)
            // Still serving.
            #expect(try await agent.client.downloads().map(\.id) == ["dup"])
        }
    }

    @Test("a client that goes away in the middle of the event stream costs nothing")
    func clientLeavesMidStream() async throws {
        try await AgentFixture.with { agent in
            try await agent.client.add(id: "a", url: URL(string: "http://127.0.0.1:9/a")!, destination: agent.downloads.appending(path: "a"))
            for _ in 1...20 {
                _ = try await agent.events(since: 0) { !$0.isEmpty }
            }
            // Each stream notices that its client is gone at its next write: make one (and the
            // keep-alive writes every 15 s). The bound is generous: CI's busy 2-core machine once
            // took more than 30 s for twenty streams to wake and write.
            try await agent.client.add(id: "b", url: URL(string: "http://127.0.0.1:9/b")!, destination: agent.downloads.appending(path: "b"))
            let streams = try? await agent.waitForEventStreams("the streams of clients that left are released", seconds: 120) { $0 == 0 }
            #expect(streams == 0, "event streams of clients that left are released")
            #expect(try await agent.client.downloads().count == 2)
        }
    }

    @Test("the socket is 0600 in a 0700 directory, and a request from another user is refused with 403")
    func otherUserRefused() async throws {
        try await AgentFixture.with { agent in
            var info = stat()
            #expect(stat(agent.socketDirectory, &info) == 0 && info.st_mode & 0o777 == 0o700)
            #expect(stat(agent.socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(stat(agent.state, &info) == 0 && info.st_mode & 0o777 == 0o700)
            // Let `nobody` reach the socket for this test only, so the agent's own check answers.
            #expect(chmod(agent.directory.path, 0o711) == 0 && chmod(agent.socketDirectory, 0o711) == 0
                    && chmod(agent.socket, 0o666) == 0)
            let (status, body) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/downloads"], asUID: 65534)
            #expect(status == 403, "\(body)")
            #expect(body.contains("serves only its own user") && body.contains("65534"), "\(body)")
            let (ownStatus, _) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/downloads"])
            #expect(ownStatus == 200)
            #expect(agent.process?.stderr.contains("refused a request from uid 65534") == true)
        }
    }

    @Test("SIGTERM or SIGINT stops the agent cleanly: exit 0, socket removed, downloads kept for the next start")
    func sigtermStops() async throws {
        let agent = try AgentFixture()
        defer { agent.directory.remove() }
        try await agent.start()
        try await agent.client.add(id: "kept", url: URL(string: "http://127.0.0.1:9/k")!, destination: agent.downloads.appending(path: "k"))
        // An open event stream does not hold the stop up.
        _ = try await agent.events(since: 0) { !$0.isEmpty }
        let (_, stream) = try await CommandRun.curl(socket: agent.socket, ["-N", "--max-time", "0.5", "http://agent/v1/events"])
        #expect(stream.contains("event stream"))
        let follower = Task { [client = agent.client] in
            for try await _ in client.events(since: 0) {}
        }
        _ = try await agent.events(since: 0) { !$0.isEmpty }
        #expect(await agent.stop() == 0)
        follower.cancel()
        #expect(!FileManager.default.fileExists(atPath: agent.socket))
        try await agent.start()
        #expect(try await agent.client.info(of: "kept")?.state == .notStarted)
        // SIGINT (Ctrl-C in a terminal) stops it the same way.
        agent.process?.send(SIGINT)
        #expect(await agent.process?.exitStatus() == 0)
        #expect(agent.process?.stdout.contains("fdl agent: stopped") == true)
    }

    @Test("a second agent on the same state or socket refuses to start, saying why")
    func secondAgentRefused() async throws {
        try await AgentFixture.with { agent in
            let (status, _, errors) = try await FDLProcess.run(["agent", "--socket", agent.socket + "2", "--state", agent.state])
            #expect(status == 74 && errors.contains("another agent uses the state directory"), "\(errors)")
            let other = try TemporaryDirectory("st")
            defer { other.remove() }
            let (status2, _, errors2) = try await FDLProcess.run(["agent", "--socket", agent.socket, "--state", other.path])
            #expect(status2 == 74 && errors2.contains("another agent is listening"), "\(errors2)")
        }
    }
}
