import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The agent's TCP listener (`fdl agent --tcp`): who it refuses (no token, a wrong token, a
/// foreign Origin, a wrong Host), the login that trades the token for a cookie, the headers that
/// protect the page, the token file, and `fdl ui`.
@Suite("fdl agent --tcp: token, cookie, Origin and Host", .serialized)
struct AgentWebGuardTests {
    @Test("requests without the token, with a wrong one, a foreign Origin or a wrong Host are refused; the token is never logged")
    func refusals() async throws {
        try await WebAgent.with { agent in
            let token = try agent.token
            let bearer = ["-H", "Authorization: Bearer \(token)"]
            let health = agent.url("/v1/health")
            let cases: [(what: String, arguments: [String], status: Int, error: String?)] = [
                ("the token", bearer + [health], 200, nil),
                ("the token, Host localhost:PORT", bearer + ["http://localhost:\(agent.port)/v1/health"], 200, nil),
                ("the token, the page's own Origin", bearer + ["-H", "Origin: http://127.0.0.1:\(agent.port)", health], 200, nil),
                ("no token", [health], 401, "unauthorized"),
                ("no token, for the page", [agent.url("/ui/")], 401, "unauthorized"),
                ("a wrong token", ["-H", "Authorization: Bearer \(String(token.reversed()))", health], 401, "unauthorized"),
                ("a wrong cookie", ["-b", "fdl_agent_session=\(String(token.reversed()))", health], 401, "unauthorized"),
                ("a token of another scheme", ["-H", "Authorization: Basic \(token)", health], 401, "unauthorized"),
                ("a foreign Origin", bearer + ["-H", "Origin: http://evil.example", health], 403, "foreign-origin"),
                ("a foreign Origin on another port", bearer + ["-H", "Origin: http://127.0.0.1:1", health], 403, "foreign-origin"),
                ("a foreign Origin adding a download", bearer + ["-H", "Origin: http://evil.example", "-X", "POST", "-d",
                    "{\"id\":\"x\",\"url\":\"http://127.0.0.1:9/f\"}", agent.url("/v1/downloads")], 403, "foreign-origin"),
                ("a wrong Host (DNS rebinding)", bearer + ["-H", "Host: evil.example:\(agent.port)", health], 403, "bad-host"),
                ("a Host on another port", bearer + ["-H", "Host: 127.0.0.1:1", health], 403, "bad-host"),
                ("a login with a wrong token", [agent.url("/ui/login?token=\(String(token.reversed()))")], 401, "unauthorized"),
            ]
            for item in cases {
                let answer = try await agent.curl(item.arguments)
                #expect(answer.status == item.status, "\(item.what): \(answer.body)")
                if let error = item.error {
                    let json = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: String]
                    #expect(json?["error"] == error, "\(item.what): \(answer.body)")
                    #expect(json?["message"]?.isEmpty == false, "\(item.what): \(answer.body)")
                }
                #expect(answer.headers["content-security-policy"]?.contains("default-src 'self'") == true, "\(item.what)")
            }
            // Nothing was added by the refused POST.
            let list = try await agent.curl(bearer + [agent.url("/v1/downloads")])
            #expect(list.body.contains("\"downloads\":[]"), "\(list.body)")
            // The agent logged the refusals, never the token.
            #expect(agent.process?.stderr.contains("refused") == true)
            #expect(agent.process?.stderr.contains(token) == false)
            #expect(agent.process?.stderr.contains(String(token.reversed())) == false)
        }
    }

    @Test("the login URL sets an HttpOnly SameSite=Strict cookie and leads to the page without the token")
    func loginAndPage() async throws {
        try await WebAgent.with { agent in
            let token = try agent.token
            #expect(agent.loginURL == agent.url("/ui/login?token=\(token)"))
            let login = try await agent.curl([agent.loginURL])
            #expect(login.status == 303)
            #expect(login.headers["location"] == "/ui/")
            let cookie = try #require(login.headers["set-cookie"])
            #expect(cookie.hasPrefix("fdl_agent_session=\(token);"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))

            let session = ["-b", "fdl_agent_session=\(token)"]
            let page = try await agent.curl(session + [agent.url("/ui/")])
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.body.contains("<script src=\"/ui/app.js\""))
            #expect(!page.body.contains("<script>") && !page.body.contains("style="), "no inline script or style")
            let policy = try #require(page.headers["content-security-policy"])
            #expect(policy.contains("default-src 'self'") && policy.contains("frame-ancestors 'none'"))
            #expect(page.headers["x-content-type-options"] == "nosniff")
            #expect(page.headers["referrer-policy"] == "no-referrer")
            for (path, type) in [("/ui/app.js", "text/javascript; charset=utf-8"), ("/ui/app.css", "text/css; charset=utf-8")] {
                let file = try await agent.curl(session + [agent.url(path)])
                #expect(file.status == 200 && file.headers["content-type"] == type, "\(path)")
                #expect(!file.body.isEmpty)
            }
            // The cookie drives the API as the token does (the page's own requests).
            let health = try await agent.curl(session + ["-H", "Origin: http://127.0.0.1:\(agent.port)", agent.url("/v1/health")])
            #expect(health.status == 200, "\(health.body)")
        }
    }

    @Test("the token file is 0600 and survives a restart; the port file goes with the agent; fdl ui prints the login URL")
    func tokenFileAndUICommand() async throws {
        try await WebAgent.with { agent in
            var info = stat()
            #expect(stat(agent.state + "/agent.token", &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(stat(agent.state + "/agent.port", &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            let token = try agent.token
            #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))

            let ui = try await FDLProcess.run(["ui", "--state", agent.state])
            #expect(ui.status == 0, "\(ui.stderr)")
            #expect(ui.stdout == agent.loginURL + "\n")

            let port = agent.port
            #expect(await agent.stop() == 0)
            #expect(!FileManager.default.fileExists(atPath: agent.state + "/agent.port"))
            let stopped = try await FDLProcess.run(["ui", "--state", agent.state])
            #expect(stopped.status == 74)
            #expect(stopped.stderr.contains("fdl agent --tcp"), "\(stopped.stderr)")

            // Restarted on the same port: the same token, so a page's cookie still works.
            try await agent.start(port: port)
            #expect(try agent.token == token)
            let health = try await agent.curl(["-b", "fdl_agent_session=\(token)", agent.url("/v1/health")])
            #expect(health.status == 200)
        }
    }

    @Test("--open without --tcp, and a port out of range, are usage errors")
    func usage() async throws {
        let open = try await FDLProcess.run(["agent", "--open"])
        #expect(open.status == 64 && open.stderr.contains("--open needs --tcp"), "\(open.stderr)")
        let port = try await FDLProcess.run(["agent", "--tcp", "70000"])
        #expect(port.status == 64 && port.stderr.contains("--tcp"), "\(port.stderr)")
    }
}
