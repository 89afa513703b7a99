import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// Issue 29: with the agent's page logged in in headless Chromium, a page served from another
/// loopback port (another local user's listener, another local web application) tries every
/// request a page can make to the agent, with the browser's credentials, and tries to read the
/// token; `attack_page.py` drives it (see its header) and serves that page from a server of its
/// own that records every request it gets.
///
/// What must hold: the attacker's server never saw the token (nor any cookie of the agent), the
/// attacker's page read nothing of the agent, the agent refused each request that reached it
/// (its log names each one) and changed nothing, and the agent's page kept working (two
/// downloads added through its form, before and after the attacks, complete byte-exact).
@Suite("fdl agent: a page of another loopback port cannot use the logged-in page's credential", .serialized)
struct AgentWebAttackTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("attack_page.py").path

    @Test("after a login, a page of another loopback port gets no request accepted and never sees the token; the page still works")
    func anotherPortGetsNothing() async throws {
        try WebAgent.requireChromium()
        try await NginxServer.withServer { server, _ in
            let before = try server.serve("files/before.bin", sampleBytes(200_000, seed: 91))
            let after = try server.serve("files/after.bin", sampleBytes(300_000, seed: 92))
            try await WebAgent.with { agent in
                let scratch = try TemporaryDirectory("agent-web-attack")
                defer { scratch.remove() }
                let attackerLog = scratch.path("attacker.log")
                let reportPath = scratch.path("report.json")
                let (status, output, errors) = try await CommandRun.run([
                    "/usr/bin/timeout", "400", "/usr/bin/env", "python3", Self.script,
                    "--login", agent.loginURL, "--url", server.url("files/before.bin"), "--after-url", server.url("files/after.bin"),
                    "--id", "legit", "--log", attackerLog, "--report", reportPath,
                ])
                #expect(status == 0, "attack_page.py: \(output) \(errors)")
                let token = try agent.token

                // The attacker's server: it served its page and got the report, and never the
                // token (nor the agent's old cookie) in any request line, header or body.
                let seen = (try? String(contentsOfFile: attackerLog, encoding: .utf8)) ?? ""
                #expect(seen.contains("GET / HTTP/1.1") && seen.contains("POST /report HTTP/1.1") && seen.contains("GET /pixel HTTP/1.1"), "\(seen)")
                #expect(!seen.lowercased().contains(token), "the attacker's server received the token")
                #expect(!seen.contains("fdl_agent_session"), "the attacker's server received the agent's cookie")

                // The attacker's page: two runs (its own tab, then the agent's tab), each of every
                // attempt, none of which read anything of the agent.
                let reportText = (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? ""
                #expect(!reportText.lowercased().contains(token), "the attacker's page read the token")
                let report = try JSONSerialization.jsonObject(with: Data(reportText.utf8)) as? [String: Any]
                let attackerPort = try #require(report?["attackerPort"] as? Int)
                let runs = (report?["runs"] as? [[[String: String]]]) ?? []
                #expect(runs.count == 2, "\(reportText)")
                for run in runs {
                    #expect(run.count == 18, "every attempt reported: \(run.map { $0["name"] ?? "" })")
                    for attempt in run {
                        #expect(attempt["outcome"] != "read" && attempt["outcome"] != "crashed",
                                "\(attempt["name"] ?? ""): \(attempt["outcome"] ?? "") \(attempt["detail"] ?? "")")
                    }
                }

                // The agent refused each request of the attacker's page that reached it: those
                // with its Origin (403), and those a browser sends without one (401: no cookie
                // stands in for the token any more). The log names them without the token.
                let agentLog = agent.process?.stderr ?? ""
                let origin = "from the origin http://127.0.0.1:\(attackerPort)"
                for refusal in [
                    "GET /v1/downloads/probe-img without a valid token",
                    "GET /v1/downloads/probe-script without a valid token",
                    "GET /v1/downloads/probe-fetch without a valid token",
                    "GET /v1/downloads \(origin)",
                    "GET /v1/events \(origin)",
                    "OPTIONS /v1/downloads \(origin)",
                    "OPTIONS /v1/limit \(origin)",
                    "POST /v1/downloads \(origin)",
                    "POST /v1/downloads/legit-before/cancel \(origin)",
                ] {
                    #expect(agentLog.contains("refused a TCP request \(refusal)"), "\(refusal): \(agentLog)")
                }
                #expect(!agentLog.contains(token), "the agent logged the token")

                // Nothing changed but what the page did: its two downloads, complete and
                // byte-exact; no limit.
                let downloads = try await agent.client.downloads()
                #expect(Set(downloads.map(\.id)) == ["legit-before", "legit-after"], "\(downloads.map(\.id))")
                #expect(downloads.allSatisfy { $0.state == .completed }, "\(downloads.map { "\($0.id) \($0.state)" })")
                #expect(try await agent.client.limit() == nil)
                #expect(try Data(contentsOf: agent.downloads.appendingPathComponent("before.bin")) == before)
                #expect(try Data(contentsOf: agent.downloads.appendingPathComponent("after.bin")) == after)
            }
        }
    }
}
