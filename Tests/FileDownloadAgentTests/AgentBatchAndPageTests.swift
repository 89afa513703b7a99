import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// The API's bulk forms: a batch add (`POST /v1/downloads` with an array) answered item by item,
/// the paged and filtered list, the summary, and the bounds of each.
@Suite("fdl agent: batch add, pages, summary", .serialized)
struct AgentBatchAndPageTests {
    @Test("a batch adds every valid item, refuses the others item by item; pages name each download once; the summary counts")
    func batchPagesSummary() async throws {
        try await AgentFixture.with { agent in
            let out = agent.downloads.path
            var requests = (0..<250).map {
                AgentDownloadRequest(id: String(format: "b%03d", $0), url: "http://127.0.0.1:9/\($0)", destination: "\(out)/b\($0)", start: false)
            }
            requests.insert(AgentDownloadRequest(id: "b007", url: "http://127.0.0.1:9/dup", destination: "\(out)/dup", start: false), at: 10)
            requests.insert(AgentDownloadRequest(id: "bad", url: "not a url", start: false), at: 20)
            let results = try await agent.client.submit(requests)
            #expect(results.count == 252)
            #expect(results.filter { $0.status == 201 }.count == 250)
            #expect(results[10].status == 409 && results[10].error == .duplicateID && results[10].id == "b007")
            #expect(results[20].status == 400 && results[20].error == .badURL && results[20].id == "bad")
            #expect(results[0].download?.destination.path == "\(out)/b0" && results[0].download?.state == .notStarted)

            // Pages of 7: every download once, in queue order.
            var ids: [String] = []
            var after: Int64?
            repeat {
                let page = try await agent.client.page(after: after, limit: 7)
                #expect(page.downloads.count <= 7)
                ids += page.downloads.map(\.id)
                after = page.next
            } while after != nil
            #expect(ids == (0..<250).map { String(format: "b%03d", $0) })
            #expect(try await agent.client.downloads().map(\.id) == ids)

            try await agent.client.cancel("b001")
            #expect(try await agent.client.downloads(states: [.cancelled]).map(\.id) == ["b001"])
            let summary = try await agent.client.summary()
            #expect(summary.downloads == 250 && summary.states == ["notStarted": 249, "cancelled": 1])
            // Without a limit: the default page.
            let (_, first) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/downloads"])
            let page = try JSONDecoder().decode(AgentDownloadPage.self, from: Data(first.utf8))
            #expect(page.downloads.count == 100 && page.next != nil)
        }
    }

    @Test("1,000 requests with long URLs (about 6 MB of JSON) are sent in batches under the agent's 4 MiB body limit: all added")
    func largeRequestsAreSplitBySize() async throws {
        try await AgentFixture.with { agent in
            let out = agent.downloads.path
            let query = String(repeating: "x", count: 6_000)
            let requests = (0..<1000).map {
                AgentDownloadRequest(id: String(format: "l%04d", $0), url: "http://127.0.0.1:9/\($0)?sig=\(query)",
                                     destination: "\(out)/l\($0)", start: false)
            }
            let results = try await agent.client.submit(requests)
            #expect(results.count == 1000 && results.allSatisfy { $0.status == 201 })
            #expect(try await agent.client.summary().downloads == 1000)
        }
    }

    @Test("over the bounds: a batch of 1,001, a limit of 1,001 or 0, an unknown state, a bad after: each a clear 4xx")
    func bounds() async throws {
        try await AgentFixture.with { agent in
            let big = (0...1000).map { "{\"id\":\"x\($0)\",\"url\":\"http://127.0.0.1:9/\($0)\",\"start\":false}" }
            let file = try agent.directory.createFile("batch.json", contents: Data(("[" + big.joined(separator: ",") + "]").utf8))
            let cases: [(arguments: [String], status: Int, error: String, phrase: String)] = [
                (["-X", "POST", "--data-binary", "@" + file, "http://agent/v1/downloads"], 413, "batch-too-large", "at most 1000"),
                (["http://agent/v1/downloads?limit=1001"], 400, "bad-limit", "from 1 to 1000"),
                (["http://agent/v1/downloads?limit=0"], 400, "bad-limit", "from 1 to 1000"),
                (["http://agent/v1/downloads?state=running"], 400, "bad-state", "\"running\" is not a state"),
                (["http://agent/v1/downloads?after=soon"], 400, "bad-after", "\"soon\""),
                (["-X", "POST", "-d", "[1, 2", "http://agent/v1/downloads"], 400, "bad-json", "JSON array"),
            ]
            for item in cases {
                let (status, body) = try await CommandRun.curl(socket: agent.socket, item.arguments)
                #expect(status == item.status, "\(item.arguments): \(body)")
                let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]
                #expect(json?["error"] == item.error && json?["message"]?.contains(item.phrase) == true, "\(item.arguments): \(body)")
            }
            #expect(try await agent.client.summary().downloads == 0, "nothing of the refused batch was added")
        }
    }
}
