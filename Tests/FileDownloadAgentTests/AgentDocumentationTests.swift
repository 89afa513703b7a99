import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// `docs/agent-api.md` and `docs/agent-api.openapi.json` against a running agent: the examples
/// run as written, and every documented endpoint answers as documented.
@Suite("fdl agent: documentation", .serialized)
struct AgentDocumentationTests {
    private static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "docs")  // Tests/FileDownloadAgentTests/this file

    /// The `sh` blocks of the section "## Examples".
    private static func examples() throws -> [String] {
        let text = try String(contentsOf: docs.appending(path: "agent-api.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Examples\n") else { throw TestFailure("agent-api.md has no Examples section") }
        let section = text[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        return section.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "\n```").first ?? "" }
    }

    @Test("the curl examples of docs/agent-api.md run as written")
    func examplesRun() async throws {
        let refusing = try RefusingPort()
        do {
            try await AgentFixture.with { agent in
                var environment = ProcessInfo.processInfo.environment
                environment["SOCK"] = agent.socket
                environment["URL"] = "http://127.0.0.1:\(refusing.port)/example.bin"
                environment["DIR"] = agent.downloads.path
                let blocks = try Self.examples()
                #expect(blocks.count == 7)
                var outputs: [String] = []
                for block in blocks {
                    let (status, output, errors) = try await CommandRun.run(["/bin/sh", "-ec", block], environment: environment)
                    let expected: Int32 = block.contains("--max-time") ? 28 : 0
                    #expect(status == expected, "\(block)\n\(output)\(errors)")
                    #expect(!output.isEmpty || block.contains("DELETE"), "\(block)")
                    outputs.append(output)
                }
                #expect(outputs[1].contains("\"id\":\"example\"") && outputs[1].contains("\"results\":[{\"download\""), "\(outputs[1])")
                #expect(outputs[4].contains(#"{"bytesPerSecond":1048576}"#) && outputs[4].contains(#"{"bytesPerSecond":null}"#),
                        "the limit set, read and cleared: \(outputs[4])")
                #expect(outputs[5].contains("event: download") && outputs[5].contains("\"type\":\"cancelled\""), "\(outputs[5])")
                #expect(outputs[6].contains("\"error\":\"bad-url\""))
                #expect(try await agent.client.limit() == nil, "cleared by the example")
                #expect(try await agent.client.info(of: "example") == nil, "forgotten by the DELETE example")
            }
        }
        withExtendedLifetime(refusing) {}
    }

    @Test("the Swift client sample of docs/agent-api.md downloads a file and leaves its cursor at the completion")
    func clientSampleRuns() async throws {
        try await NginxServer.withServer { nginx, _ in
            let data = try nginx.serve("iso.bin", sampleBytes(123_456))
            try await AgentFixture.with { agent in
                let target = agent.downloads.appending(path: "iso.bin")
                try await AgentArticleSamples.client(socket: agent.socket, appState: agent.directory.path,
                                                     isoURL: URL(string: nginx.url("iso.bin"))!, target: target)
                #expect(try Data(contentsOf: target) == data)
                let saved = try #require(try AgentCursorFile(path: agent.directory.path("agent-cursor")).load())
                let events = try await agent.events(since: saved - 1) { !$0.isEmpty }
                #expect(String(describing: events.first?.event) == String(describing: DownloadEvent?.some(.completed(id: "iso", file: target))))
            }
        }
    }

    @Test("every endpoint of docs/agent-api.openapi.json answers with a documented status and the documented fields")
    func openAPIMatches() async throws {
        let data = try Data(contentsOf: Self.docs.appending(path: "agent-api.openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        try await AgentFixture.with { agent in
            let target = agent.downloads.appending(path: "doc.bin").path
            let body = "{\"id\":\"doc\",\"url\":\"http://127.0.0.1:9/doc\",\"destination\":\"\(target)\",\"start\":false}"
            // In an order in which each succeeds; then each with an unknown id.
            let plan: [(method: String, path: String, arguments: [String])] = [
                ("get", "/v1/health", []),
                ("get", "/v1/summary", []),
                ("post", "/v1/downloads", ["-d", body]),
                ("get", "/v1/downloads", []),
                ("get", "/v1/downloads/{id}", []),
                ("get", "/v1/limit", []),
                ("put", "/v1/limit", ["-d", "{\"bytesPerSecond\":1048576}"]),
                ("put", "/v1/downloads/{id}/url", ["-d", "{\"url\":\"http://127.0.0.1:9/doc2\"}"]),
                ("post", "/v1/downloads/{id}/start", []),
                ("post", "/v1/downloads/{id}/pause", []),
                ("post", "/v1/downloads/{id}/resume", []),
                ("post", "/v1/downloads/{id}/cancel", []),
                ("delete", "/v1/downloads/{id}", []),
                ("get", "/v1/events", ["--max-time", "1", "-H", "Last-Event-ID: 0"]),
                // No delivery is dead here: each key is a 404.
                ("get", "/v1/deliveries/dead", []),
                ("post", "/v1/deliveries/dead/{key}/retry", []),
                ("delete", "/v1/deliveries/dead/{key}", []),
            ]
            let documented = Set(paths.flatMap { path, methods in methods.keys.map { "\($0) \(path)" } })
            #expect(Set(plan.map { "\($0.method) \($0.path)" }) == documented, "the test covers every documented endpoint")
            for step in plan {
                for id in ["doc", "nobody"] where step.path.contains("{id}") || step.path.contains("{key}") || id == "doc" {
                    let operation = try #require(paths[step.path]?[step.method] as? [String: Any])
                    let responses = try #require(operation["responses"] as? [String: Any])
                    let url = "http://agent" + step.path.replacingOccurrences(of: "{id}", with: id)
                        .replacingOccurrences(of: "{key}", with: id)
                    let (status, answer) = try await CommandRun.curl(socket: agent.socket,
                                                                     ["-X", step.method.uppercased()] + step.arguments + [url])
                    #expect(responses[String(status)] != nil, "\(step.method) \(url) answered \(status), not documented: \(answer)")
                    if id == "nobody" || step.path.contains("{key}") { #expect(status == 404, "\(step.method) \(url)") }
                    guard (200..<300).contains(status), step.path != "/v1/events", status != 204 else { continue }
                    let required = try Self.requiredFields(of: responses[String(status)], schemas: schemas)
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
                    #expect(Set(object.keys).isSuperset(of: required), "\(step.method) \(url): \(answer) lacks some of \(required)")
                }
            }
        }
    }

    /// The required properties of a response's JSON schema (following one `$ref`).
    private static func requiredFields(of response: Any?, schemas: [String: [String: Any]]) throws -> Set<String> {
        let content = ((response as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
        var schema = content?["schema"] as? [String: Any] ?? [:]
        if let reference = schema["$ref"] as? String, let name = reference.split(separator: "/").last {
            schema = schemas[String(name)] ?? [:]
        }
        return Set(schema["required"] as? [String] ?? [])
    }
}
