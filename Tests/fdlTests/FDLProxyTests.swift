import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get` and proxies: the environment as curl reads it, `--proxy` and `--noproxy`, against
/// nginx and a forward proxy on 127.0.0.1 that logs every request it gets.
@Suite struct FDLProxyTests {
    /// No proxy variable of the test's own environment leaks into a run.
    static let clean: [String: String?] = [
        "http_proxy": nil, "HTTP_PROXY": nil, "https_proxy": nil, "HTTPS_PROXY": nil,
        "all_proxy": nil, "ALL_PROXY": nil, "no_proxy": nil, "NO_PROXY": nil,
    ]

    func withProxy(credentials: String? = nil, _ body: (NginxServer, TemporaryDirectory, ForwardProxy) async throws -> Void) async throws {
        try await NginxServer.withServer { server, out in
            let proxy = try ForwardProxy(logIn: server.directory.url, credentials: credentials)
            defer { proxy.stop() }
            try await body(server, out, proxy)
        }
    }

    func environment(_ values: [String: String]) -> [String: String?] {
        Self.clean.merging(values.mapValues { $0 }) { $1 }
    }

    @Test func httpProxyInTheEnvironmentIsUsedForLoopbackToo() async throws {
        try await withProxy { server, out, proxy in
            let data = try server.serve("p.bin", sampleBytes(200_000, seed: 61))
            let result = try await FDLProcess.run(["get", server.url("p.bin"), "-d", out.path],
                                                  environment: environment(["http_proxy": proxy.url]))
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("p.bin")) == data)
            #expect(proxy.requests == ["GET \(server.url("p.bin"))"])
        }
    }

    @Test func aProxyVariableThatIsNotAProxyURLFailsWithoutShowingThePassword() async throws {
        try await NginxServer.withServer { server, out in
            _ = try server.serve("b.bin", sampleBytes(10_000, seed: 63))
            let result = try await FDLProcess.run(["get", server.url("b.bin"), "-d", out.path],
                                                  environment: environment(["http_proxy": "htpp://alice:s3cret@127.0.0.1:3128"]))
            #expect(result.status != 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect((result.stdout + result.stderr).contains("http_proxy"), "names the variable: \(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("s3cret"))
            #expect(!FileManager.default.fileExists(atPath: out.file("b.bin").path), "never went direct")
            #expect(!server.accessLog.contains { $0.contains("/b.bin") })
            let stateFiles = FileManager.default.enumerator(atPath: out.file(".fdl").path)?.compactMap { $0 as? String } ?? []
            for name in stateFiles {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: out.file(".fdl/\(name)").path, isDirectory: &isDirectory),
                      !isDirectory.boolValue else { continue }
                let state = try Data(contentsOf: out.file(".fdl/\(name)"))
                #expect(state.range(of: Data("s3cret".utf8)) == nil, "the state (\(name)) holds no password")
            }
        }
    }

    @Test func noProxyNamingTheHostBypassesTheProxy() async throws {
        try await withProxy { server, out, proxy in
            let data = try server.serve("n.bin", sampleBytes(50_000, seed: 62))
            let result = try await FDLProcess.run(["get", server.url("n.bin"), "-d", out.path],
                                                  environment: environment(["http_proxy": proxy.url, "no_proxy": "localhost,127.0.0.1"]))
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("n.bin")) == data)
            #expect(proxy.requests.isEmpty)
            #expect(server.accessLog.contains { $0.contains("GET /n.bin") })
        }
    }

    @Test func upperCaseHTTPProxyIsIgnoredAsCurlDoes() async throws {
        try await withProxy { server, out, proxy in
            try server.serve("u.bin", sampleBytes(10_000, seed: 63))
            let result = try await FDLProcess.run(["get", server.url("u.bin"), "-d", out.path],
                                                  environment: environment(["HTTP_PROXY": proxy.url]))
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(proxy.requests.isEmpty, "HTTP_PROXY can come from a request header in CGI: curl ignores it")
        }
    }

    @Test func proxyOptionWinsOverTheEnvironmentAndNoproxyOverNoProxy() async throws {
        try await withProxy { server, out, proxy in
            let data = try server.serve("o.bin", sampleBytes(30_000, seed: 64))
            // The environment names a proxy nobody listens on; --proxy replaces it.
            let refusing = try RefusingPort()
            let dead = "http://127.0.0.1:\(refusing.port)"
            let through = try await FDLProcess.run(["get", server.url("o.bin"), "-d", out.path, "--proxy", proxy.url],
                                                   environment: environment(["http_proxy": dead]))
            #expect(through.status == 0, "stdout: \(through.stdout) stderr: \(through.stderr)")
            #expect(try Data(contentsOf: out.file("o.bin")) == data)
            #expect(proxy.requests == ["GET \(server.url("o.bin"))"])

            let other = try TemporaryDirectory("fdl-noproxy")
            defer { other.remove() }
            let direct = try await FDLProcess.run(["get", server.url("o.bin"), "-d", other.path, "--noproxy", "127.0.0.1"],
                                                  environment: environment(["http_proxy": proxy.url, "no_proxy": "example.org"]))
            #expect(direct.status == 0, "stdout: \(direct.stdout) stderr: \(direct.stderr)")
            #expect(proxy.requests.count == 1, "--noproxy bypassed the proxy: \(proxy.requests)")

            let none = try TemporaryDirectory("fdl-noproxy-none")
            defer { none.remove() }
            let disabled = try await FDLProcess.run(["get", server.url("o.bin"), "-d", none.path, "--proxy", ""],
                                                    environment: environment(["http_proxy": proxy.url]))
            #expect(disabled.status == 0, "stdout: \(disabled.stdout) stderr: \(disabled.stderr)")
            #expect(proxy.requests.count == 1, "--proxy '' connects directly")
        }
    }

    @Test func proxyCredentialsAreUsedAndNeverPrintedOrStored() async throws {
        try await withProxy(credentials: "agent:pr0xy-s3cret") { server, out, proxy in
            let data = try server.serve("c.bin", sampleBytes(40_000, seed: 65))
            let result = try await FDLProcess.run(["get", server.url("c.bin"), "-d", out.path, "--json"],
                                                  environment: environment(["http_proxy": "http://agent:pr0xy-s3cret@127.0.0.1:\(proxy.port)"]))
            #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(try Data(contentsOf: out.file("c.bin")) == data)
            #expect(proxy.requests == ["GET \(server.url("c.bin")) auth"])
            #expect(!(result.stdout + result.stderr).contains("pr0xy-s3cret"))
            let state = try Data(contentsOf: out.file(".fdl/state.sqlite"))
            #expect(state.range(of: Data("pr0xy-s3cret".utf8)) == nil, "the password is not in the state")
        }
    }

    @Test func aProxyThatIsNotAURLIsAUsageErrorWithoutThePassword() async throws {
        let out = try TemporaryDirectory("fdl-proxy-usage")
        defer { out.remove() }
        let result = try await FDLProcess.run(["get", "http://127.0.0.1:9/x", "-d", out.path, "--proxy", "ftp://u:hunter2@host:21"],
                                              environment: Self.clean)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--proxy"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
    }
}
