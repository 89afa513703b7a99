import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// The overall limit (`GET`/`PUT /v1/limit`, `fdl agent --limit-rate-total`) and fresh URLs
/// (`PUT /v1/downloads/{id}/url`, the agent's bounded wait after `needsFreshURL`) through the agent
/// as a process.
@Suite("fdl agent: overall limit and fresh URLs", .serialized, .timeLimit(.minutes(3)))
struct AgentLimitTests {
    @Test("the overall limit starts as --limit-rate-total says; PUT /v1/limit sets and clears it; bad values are a 400 and change nothing")
    func limitSetGetClear() async throws {
        try await AgentFixture.with(arguments: ["--limit-rate-total", "1.5M"]) { agent in
            #expect(try await agent.client.limit() == 1_572_864)
            #expect(try await agent.client.setLimit(2048) == 2048)
            let (status, body) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/limit"])
            #expect(status == 200 && body.contains(#""bytesPerSecond":2048"#), "\(body)")
            let cases: [(body: String, error: String, phrase: String)] = [
                (#"{"bytesPerSecond": 0}"#, "bad-limit", "between 1 and"),
                (#"{"bytesPerSecond": -5}"#, "bad-limit", "between 1 and"),
                (#"{"bytesPerSecond": 2199023255552}"#, "bad-limit", "between 1 and"),
                (#"{"bytesPerSecond": "fast"}"#, "bad-json", "expected"),
                (#"{"bytesPerSecond": 1.5e3"#, "bad-json", "malformed JSON"),
            ]
            for item in cases {
                let (status, body) = try await CommandRun.curl(socket: agent.socket, ["-X", "PUT", "-d", item.body, "http://agent/v1/limit"])
                #expect(status == 400, "\(item.body): \(body)")
                let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]
                #expect(json?["error"] == item.error && json?["message"]?.contains(item.phrase) == true, "\(item.body): \(body)")
            }
            #expect(try await agent.client.limit() == 2048, "a refused value changes nothing")
            #expect(try await agent.client.setLimit(nil) == nil)
            let (_, cleared) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/limit"])
            #expect(cleared.contains(#""bytesPerSecond":null"#), "\(cleared)")
        }
    }

    @Test("PUT /v1/downloads/{id}/url refuses an unknown id, a bad URL and a bad expiresAt, and re-points a download that waits")
    func urlUpdateRefusals() async throws {
        try await AgentFixture.with { agent in
            let target = agent.downloads.appending(path: "x").path
            try await agent.client.submit(AgentDownloadRequest(id: "a", url: "http://127.0.0.1:9/f", destination: target, start: false))
            let cases: [(path: String, body: String, status: Int, error: String)] = [
                ("nobody", #"{"url": "http://127.0.0.1:9/g"}"#, 404, "unknown-id"),
                ("a", #"{"url": "not a url"}"#, 400, "bad-url"),
                ("a", #"{"url": "gopher://h/g"}"#, 400, "bad-url"),
                ("a", #"{"url": "http://127.0.0.1:9/g", "expiresAt": "tomorrow"}"#, 400, "bad-expires-at"),
                ("a", #"{"link": "http://127.0.0.1:9/g"}"#, 400, "bad-json"),
            ]
            for item in cases {
                let (status, body) = try await CommandRun.curl(
                    socket: agent.socket, ["-X", "PUT", "-d", item.body, "http://agent/v1/downloads/\(item.path)/url"])
                #expect(status == item.status && body.contains(item.error), "\(item.body): \(body)")
            }
            let expiry = Date(timeIntervalSinceNow: 3600)
            let info = try await agent.client.updateURL(id: "a", to: URL(string: "http://127.0.0.1:9/g")!, expiresAt: expiry)
            #expect(info.url.absoluteString == "http://127.0.0.1:9/g" && info.state == .notStarted)
        }
    }

    @Test("a client following the events answers needsFreshURL with a new signed link; the download completes byte-exact")
    func freshURLAnswered() async throws {
        try await withSignedFile(timeout: 120) { agent, fault, data in
            let client = agent.client
            let since = try await client.status().lastEventSequence
            let answered = Shared(0)
            let refusals = Shared<[String]>([])
            let answerer = Task {
                for try await item in client.events(since: since, includeProgress: false) {
                    guard case .needsFreshURL(let id, _) = item.event else { continue }
                    // A URL the agent cannot fetch is refused, and the download still waits.
                    let (status, body) = try await CommandRun.curl(
                        socket: agent.socket, ["-X", "PUT", "-d", #"{"url": "gopher://h/g"}"#, "http://agent/v1/downloads/\(id)/url"])
                    let waits = try await client.info(of: id)?.state == .interrupted
                    refusals.withLock { $0.append("\(status) \(body.contains("bad-url")) \(waits)") }
                    try await client.updateURL(id: id, to: try await fault.sign("signed.bin", ttl: 2, "rate=200000"))
                    answered.withLock { $0 += 1 }
                }
            }
            defer { answerer.cancel() }
            try await client.start(id: "s", url: try await fault.sign("signed.bin", ttl: 2, "rate=200000"),
                                   destination: agent.downloads.appending(path: "signed.bin"))
            let list = try await agent.waitUntil("the signed download ends") { $0.first?.state.isTerminal == true || $0.first?.state == .failed }
            #expect(list.first?.state == .completed, "\(String(describing: list.first))")
            #expect(try Data(contentsOf: agent.downloads.appending(path: "signed.bin")) == data)
            #expect(answered.withLock { $0 } >= 1)
            #expect(!refusals.withLock { $0 }.isEmpty && refusals.withLock { $0 }.allSatisfy { $0 == "400 true true" },
                    "\(refusals.withLock { $0 })")
        }
    }

    @Test("when nobody answers needsFreshURL, the download fails after --fresh-url-timeout with the server's refusal")
    func freshURLUnanswered() async throws {
        try await withSignedFile(timeout: 1) { agent, fault, _ in
            try await agent.client.start(id: "s", url: try await fault.sign("signed.bin", ttl: 1, "rate=200000"),
                                         destination: agent.downloads.appending(path: "signed.bin"))
            let list = try await agent.waitUntil("the signed download fails") { $0.first?.state == .failed || $0.first?.state == .completed }
            #expect(list.first?.state == .failed)
            #expect(list.first?.lastError?.contains("403") == true, "\(String(describing: list.first?.lastError))")
        }
    }

    /// An agent with `--fresh-url-timeout timeout` and a fault server serving `signed.bin`.
    private func withSignedFile(timeout: Double, _ body: (AgentFixture, FaultServer, Data) async throws -> Void) async throws {
        try await FaultServer.withSignedFile(seed: 91) { fault, data in
            try await AgentFixture.with(arguments: ["--fresh-url-timeout", String(timeout)]) { agent in
                try await body(agent, fault, data)
            }
        }
    }
}
