import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// The agent's API against its own OpenAPI document, property-based: schemathesis (from PyPI, in a
/// virtualenv under the cache directory, `scripts/schemathesis-agent.sh`) generates requests for
/// every operation of `docs/agent-api.openapi.json`, valid and invalid, sends them to a running
/// `fdl agent --tcp` with its token, and checks every answer: no 5xx, a documented status, content
/// type, shape and header fields, a schema-violating request refused, 405 with `Allow` for a
/// method a path does not answer. Its stateful phase follows the document's links (add, then
/// look at, start, pause, resume, cancel, re-point and forget what was added).
///
/// What the run adds stays harmless: destinations are rewritten into a directory of the test and
/// URLs pointed at 127.0.0.1:1, where nothing listens (`scripts/schemathesis/fdl_agent_hooks.py`).
/// The seed is fixed (`scripts/schemathesis/agent.toml`), so a failure seen once is seen again.
@Suite("fdl agent: the API against its OpenAPI document (schemathesis)", .serialized)
struct AgentSchemathesisTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()  // Tests/FileDownloadAgentTests/this file

    /// The operations of the document (method and path).
    private static func operations() throws -> Int {
        let data = try Data(contentsOf: root.appending(path: "docs/agent-api.openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        return paths.values.map { $0.keys.count { ["get", "put", "post", "delete", "patch"].contains($0) } }.reduce(0, +)
    }

    @Test("every operation, every answer in a documented shape, no 5xx, and the agent still serves")
    func documentHolds() async throws {
        let operations = try Self.operations()
        try await WebAgent.with { agent in
            let scratch = try TemporaryDirectory("agent-schemathesis")
            defer { scratch.remove() }
            // At most 5 minutes in all: the virtualenv's first install (a few seconds to a minute)
            // and the run (about 10 s on an idle machine; 40 examples an operation, request timeout 10 s).
            let (status, output, errors) = try await ChildProcess.run([
                "/bin/bash", Self.root.appending(path: "scripts/schemathesis-agent.sh").path,
                "--port", String(agent.port), "--state", agent.state, "--scratch", scratch.path,
            ], limit: .seconds(300))
            #expect(status == 0, "schemathesis found answers the document does not describe:\n\(output)\n\(errors)")
            #expect(output.contains("Selected: \(operations)/\(operations)") && output.contains("Tested: \(operations)"),
                    "schemathesis did not test all \(operations) operations:\n\(output)")
            // Still serving on both listeners, and nothing logged a failed request (a 500).
            #expect(try await agent.client.status().status == "ok")
            let failed = (agent.process?.stderr ?? "").split(separator: "\n").filter { $0.contains("request ") && $0.contains(" failed: ") }
            #expect(failed.isEmpty, "the agent answered with 500: \(failed)")
            #expect(agent.process?.stderr.contains(try agent.token) == false, "the token was logged")
        }
    }
}
