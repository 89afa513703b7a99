import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The agent's TCP listener (`fdl agent --tcp`): who it refuses (no token, a wrong token, a
/// foreign Origin, a wrong Host, the token as a cookie or in the query), the login URL that carries
/// the token in its fragment, the headers that protect the page, the token file, and `fdl ui`.
@Suite("fdl agent --tcp: token, Origin and Host", .serialized)
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
                ("no token, the event stream", [agent.url("/v1/events")], 401, "unauthorized"),
                ("a wrong token", ["-H", "Authorization: Bearer \(String(token.reversed()))", health], 401, "unauthorized"),
                ("the token as the old session cookie", ["-b", "fdl_agent_session=\(token)", health], 401, "unauthorized"),
                ("the token as a cookie, adding a download", ["-b", "fdl_agent_session=\(token)", "-X", "POST", "-d",
                    "{\"id\":\"y\",\"url\":\"http://127.0.0.1:9/f\"}", agent.url("/v1/downloads")], 401, "unauthorized"),
                ("the token in the query", [agent.url("/v1/health?token=\(token)")], 401, "unauthorized"),
                ("the old login route", [agent.url("/ui/login?token=\(token)")], 401, "unauthorized"),
                ("a token of another scheme", ["-H", "Authorization: Basic \(token)", health], 401, "unauthorized"),
                ("a foreign Origin", bearer + ["-H", "Origin: http://evil.example", health], 403, "foreign-origin"),
                ("a foreign Origin on another port", bearer + ["-H", "Origin: http://127.0.0.1:1", health], 403, "foreign-origin"),
                ("a foreign Origin adding a download", bearer + ["-H", "Origin: http://evil.example", "-X", "POST", "-d",
                    "{\"id\":\"x\",\"url\":\"http://127.0.0.1:9/f\"}", agent.url("/v1/downloads")], 403, "foreign-origin"),
                ("a wrong Host (DNS rebinding)", bearer + ["-H", "Host: evil.example:\(agent.port)", health], 403, "bad-host"),
                ("a Host on another port", bearer + ["-H", "Host: 127.0.0.1:1", health], 403, "bad-host"),
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
                #expect(answer.headers["set-cookie"] == nil, "\(item.what)")
                #expect(!answer.headers.keys.contains { $0.hasPrefix("access-control-") }, "\(item.what): \(answer.headers)")
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

    @Test("the login URL carries the token in its fragment only; the page's files need no token and set no cookie; a preflight from another origin gets no CORS grant")
    func loginAndPage() async throws {
        try await WebAgent.with { agent in
            let token = try agent.token
            #expect(agent.loginURL == agent.url("/ui/#token=\(token)"))
            let url = try #require(URLComponents(string: agent.loginURL))
            #expect(url.path == "/ui/" && url.query == nil && url.fragment == "token=\(token)")

            // What a browser sends for the login URL: the page without the fragment.
            let page = try await agent.curl([agent.url("/ui/")])
            #expect(page.status == 200)
            #expect(page.headers["set-cookie"] == nil)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.body.contains("<script src=\"/ui/app.js\""))
            #expect(!page.body.contains("<script>") && !page.body.contains("style="), "no inline script or style")
            let policy = try #require(page.headers["content-security-policy"])
            #expect(policy.contains("default-src 'self'") && policy.contains("frame-ancestors 'none'"))
            #expect(page.headers["x-content-type-options"] == "nosniff")
            #expect(page.headers["referrer-policy"] == "no-referrer")
            for (path, type) in [("/ui/app.js", "text/javascript; charset=utf-8"), ("/ui/app.css", "text/css; charset=utf-8")] {
                let file = try await agent.curl([agent.url(path)])
                #expect(file.status == 200 && file.headers["content-type"] == type, "\(path)")
                #expect(file.headers["set-cookie"] == nil, "\(path)")
                #expect(!file.body.isEmpty)
            }
            let root = try await agent.curl([agent.url("/")])
            #expect(root.status == 303 && root.headers["location"] == "/ui/")

            // The page's own requests: the bearer header, with the page's Origin.
            let health = try await agent.curl(["-H", "Authorization: Bearer \(token)", "-H", "Origin: http://127.0.0.1:\(agent.port)",
                                               agent.url("/v1/health")])
            #expect(health.status == 200, "\(health.body)")

            // The preflight a page of another port sends before a request with the header: refused,
            // without any Access-Control-Allow-* field, so the browser never sends the request.
            let preflight = try await agent.curl(["-X", "OPTIONS", "-H", "Origin: http://127.0.0.1:1",
                                                  "-H", "Access-Control-Request-Method: POST",
                                                  "-H", "Access-Control-Request-Headers: authorization, content-type",
                                                  agent.url("/v1/downloads")])
            #expect(preflight.status == 403, "\(preflight.body)")
            #expect(!preflight.headers.keys.contains { $0.hasPrefix("access-control-") }, "\(preflight.headers)")
            #expect(agent.process?.stderr.contains(token) == false)
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

            // Restarted on the same port: the same token, so an open page's requests still work.
            try await agent.start(port: port)
            #expect(try agent.token == token)
            let health = try await agent.curl(["-H", "Authorization: Bearer \(token)", agent.url("/v1/health")])
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
