import FileDownload
@testable import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// Proxies: the environment read as curl reads it, and transfers through a forward proxy on
/// 127.0.0.1 (`Servers/forward_proxy.py`, which logs every request it gets).
@Suite("HTTPTransport proxies")
struct HTTPTransportProxyTests {
    typealias Settings = HTTPTransport.ProxySettings

    @Test("the environment is read as curl reads it: http_proxy only in lower case, lower case first, all_proxy as fallback")
    func environmentLikeCurl() throws {
        let p = { (s: String) in try #require(URL(string: s)) }
        // HTTP_PROXY is never honoured (httpoxy); HTTPS_PROXY is.
        let upper = Settings.environment(["HTTP_PROXY": "http://evil:1", "HTTPS_PROXY": "http://up:2", "NO_PROXY": "a.example"])
        #expect(upper.http == nil)
        #expect(upper.https == (try p("http://up:2")))
        #expect(upper.noProxy == ["a.example"])
        let lower = Settings.environment(["http_proxy": "proxy:3128", "https_proxy": "http://low:4", "HTTPS_PROXY": "http://up:2",
                                          "no_proxy": " localhost, .example.org ,,", "NO_PROXY": "other"])
        #expect(lower.http == (try p("http://proxy:3128")), "a value without a scheme is an HTTP proxy")
        #expect(lower.https == (try p("http://low:4")), "lower case wins")
        #expect(lower.noProxy == ["localhost", ".example.org"])
        let all = Settings.environment(["ALL_PROXY": "socks5h://s:1080", "https_proxy": ""])
        #expect(all.http == (try p("socks5h://s:1080")))
        #expect(all.https == (try p("socks5h://s:1080")), "an empty variable counts as unset")
        #expect(Settings.environment([:]) == .none)
    }

    @Test("through an HTTP proxy, loopback included; no_proxy naming the host bypasses it")
    func throughTheProxy() async throws {
        try await HTTPFixture.with { fx in
            let proxy = try ForwardProxy(logIn: fx.directory.url)
            defer { proxy.stop() }
            let proxied = try HTTPTransport(configuration: .init(proxy: .environment(["http_proxy": proxy.url])))
            let staging = try fx.staging()
            let url = fx.fault.url("small.bin")
            try await fx.attempt(proxied, url, into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            #expect(proxy.requests == ["GET \(url.absoluteString)"])
            await proxied.shutdown()

            let bypassing = try HTTPTransport(configuration: .init(
                proxy: .environment(["http_proxy": proxy.url, "no_proxy": "localhost,127.0.0.1"])))
            let direct = try fx.staging()
            try await fx.attempt(bypassing, fx.fault.url("small.bin"), into: direct)
            #expect(try TestFiles.sha256(direct) == fx.smallSHA)
            #expect(proxy.requests.count == 1, "no_proxy bypassed the proxy: \(proxy.requests)")
            await bypassing.shutdown()
        }
    }

    @Test("a download's own proxy replaces the configuration's, even .none")
    func perDownloadProxy() async throws {
        try await HTTPFixture.with { fx in
            let proxy = try ForwardProxy(logIn: fx.directory.url)
            defer { proxy.stop() }
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            try await fx.attempt(transport, fx.fault.url("small.bin"), into: staging,
                                 options: TransferOptions(proxy: URL(string: proxy.url)))
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            #expect(proxy.requests.count == 1)
            await transport.shutdown()
        }
    }

    @Test("https goes through a CONNECT tunnel and TLS is still verified end to end")
    func httpsTunnel() async throws {
        try await HTTPFixture.with(tls: true) { fx in
            let proxy = try ForwardProxy(logIn: fx.directory.url)
            defer { proxy.stop() }
            let url = fx.faultTLS!.url("small.bin")
            let settings = Settings.all(try #require(URL(string: proxy.url)))
            let trusting = try HTTPTransport(configuration: .init(caBundlePath: fx.certificates!.caCertificate.path, proxy: settings))
            let staging = try fx.staging()
            try await fx.attempt(trusting, url, into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            #expect(proxy.requests == ["CONNECT 127.0.0.1:\(fx.faultTLS!.port)"])
            await trusting.shutdown()

            // Without the test CA the origin's certificate is refused, proxy or not.
            let strict = try HTTPTransport(configuration: .init(asksForServerTrust: false, proxy: settings))
            let refused = try fx.staging()
            let error = await #expect(throws: DownloadError.self) { try await fx.attempt(strict, url, into: refused) }
            #expect(error?.code == .tlsFailure)
            #expect(TestFiles.size(refused) == 0)
            #expect(proxy.requests.count == 2)
            await strict.shutdown()
        }
    }

    @Test("a redirect through the proxy to another scheme is refused before it is followed")
    func redirectThroughProxy() async throws {
        try await HTTPFixture.with { fx in
            let proxy = try ForwardProxy(logIn: fx.directory.url)
            defer { proxy.stop() }
            let transport = try HTTPTransport(configuration: .init(proxy: .all(try #require(URL(string: proxy.url)))))
            let staging = try fx.staging()
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "location=ftp://127.0.0.1/x"), into: staging)
            }
            #expect(error?.code == .redirectRefused)
            #expect(proxy.requests.count == 1, "only the first request went out: \(proxy.requests)")
            #expect(!proxy.requests.contains { $0.hasPrefix("GET ftp:") })
            await transport.shutdown()
        }
    }

    @Test("proxy credentials in the proxy URL are sent to the proxy and never appear in an error")
    func proxyCredentials() async throws {
        try await HTTPFixture.with { fx in
            let proxy = try ForwardProxy(logIn: fx.directory.url, credentials: "agent:pr0xy-s3cret")
            defer { proxy.stop() }
            let good = try HTTPTransport(configuration: .init(
                proxy: .all(try #require(URL(string: "http://agent:pr0xy-s3cret@127.0.0.1:\(proxy.port)")))))
            let staging = try fx.staging()
            try await fx.attempt(good, fx.fault.url("small.bin"), into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            #expect(proxy.requests.last?.hasSuffix(" auth") == true)
            await good.shutdown()

            let bad = try HTTPTransport(configuration: .init(
                proxy: .all(try #require(URL(string: "http://agent:wr0ng-s3cret@127.0.0.1:\(proxy.port)")))))
            let seen = ChallengeLog()
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(bad, fx.fault.url("small.bin"), into: try fx.staging()) { challenge in
                    seen.append(challenge)
                    return .reject
                }
            }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.statusCode == 407)
            if case .httpProxy = seen.all.first?.kind {} else { Issue.record("expected an httpProxy challenge, got \(seen.all)") }
            #expect(error.map { !String(describing: $0).contains("wr0ng") } == true)
            await bad.shutdown()
        }
    }

    @Test("a proxy variable that is not a usable proxy URL fails the transfer, redacted, and never goes direct",
          arguments: [("http_proxy", "htpp://alice:s3cret@127.0.0.1:3128"), ("all_proxy", "http://alice:s3cret@:3128"),
                      ("http_proxy", "ftp://alice:s3cret@127.0.0.1:21")])
    func unusableEnvironmentProxy(variable: String, value: String) async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .environment([variable: value])))
            let staging = try fx.staging()
            let error = await #expect(throws: DownloadError.self) { try await fx.attempt(transport, fx.fault.url("small.bin"), into: staging) }
            #expect(error?.code == .invalidURL)
            #expect(error?.isRetryable == false)
            let text = error.map { String(describing: $0) } ?? ""
            #expect(text.contains(variable), "names the variable: \(text)")
            #expect(!text.contains("s3cret"), "never shows the password: \(text)")
            #expect(try fx.fault.stats().requests == 0, "nothing went to the server directly")
            await transport.shutdown()
        }
    }

    @Test("a proxy given in code with a scheme libcurl does not speak fails, redacted; --proxy-like settings replace a bad variable")
    func unusableProxyInCode() async throws {
        try await HTTPFixture.with { fx in
            let bad = try #require(URL(string: "htpp://alice:s3cret@127.0.0.1:3128"))
            let transport = try HTTPTransport(configuration: .init(proxy: .all(bad)))
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin"), into: try fx.staging())
            }
            #expect(error?.code == .invalidURL)
            #expect(error.map { !String(describing: $0).contains("s3cret") } == true)
            await transport.shutdown()

            // Setting the proxy explicitly forgets the variable that did not parse.
            var settings = Settings.environment(["http_proxy": "htpp://alice:s3cret@127.0.0.1:3128"])
            settings.http = nil
            let direct = try HTTPTransport(configuration: .init(proxy: settings))
            let staging = try fx.staging()
            try await fx.attempt(direct, fx.fault.url("small.bin"), into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await direct.shutdown()
        }
    }

    @Test("user information of URLs in libcurl's messages is redacted")
    func redactsCurlDetail() {
        let redacted = Settings.redactingUserInformation(in: "Unsupported proxy scheme for 'htpp://alice:s3cret@proxy:3128'")
        #expect(redacted == "Unsupported proxy scheme for 'htpp://***@proxy:3128'")
        #expect(Settings.redactingUserInformation(in: "socks5h://tok@h:1 and http://u:p@x/y") == "socks5h://***@h:1 and http://***@x/y")
        #expect(Settings.redactingUserInformation(in: "no URL here") == "no URL here")
    }

    @Test("a redirect to the other scheme goes through that scheme's proxy, not the first URL's (or none)")
    func redirectToOtherSchemeUsesItsProxy() async throws {
        try await HTTPFixture.with(tls: true) { fx in
            let proxy = try ForwardProxy(logIn: fx.directory.url)
            defer { proxy.stop() }
            let target = fx.faultTLS!.url("small.bin").absoluteString
            let url = fx.fault.url("small.bin", "location=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            let transport = try HTTPTransport(configuration: .init(
                caBundlePath: fx.certificates!.caCertificate.path, proxy: .environment(["https_proxy": proxy.url])))
            let staging = try fx.staging()
            try await fx.attempt(transport, url, into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            #expect(proxy.requests == ["CONNECT 127.0.0.1:\(fx.faultTLS!.port)"],
                    "the http URL went direct, the https one through https_proxy: \(proxy.requests)")
            await transport.shutdown()
        }
    }
}
