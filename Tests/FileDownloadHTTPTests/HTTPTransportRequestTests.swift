import FileDownload
import FileDownloadHTTP
import Foundation
import Testing

/// What the transport sends: per-download headers, user agent, identity encoding, proxy.
@Suite("HTTPTransport requests")
struct HTTPTransportRequestTests {
    /// Downloads the fault server's `/_echo` and decodes what it saw.
    private func echo(_ fx: HTTPFixture, _ url: URL, options: TransferOptions) async throws -> (target: String, headers: [String: String]) {
        let transport = try HTTPTransport(configuration: .init(proxy: .none))
        let staging = try fx.staging()
        try await fx.attempt(transport, url, into: staging, options: options)
        await transport.shutdown()
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: staging)) as? [String: Any] ?? [:]
        let headers = (object["headers"] as? [String: String] ?? [:])
        return (object["target"] as? String ?? "", Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) }))
    }

    @Test("per-download header fields and user agent are sent, with Accept-Encoding: identity")
    func headersAndUserAgent() async throws {
        try await HTTPFixture.with { fx in
            let options = TransferOptions(
                headers: [HeaderField(name: "X-Request-Tag", value: "abc"),
                          HeaderField(name: "Accept-Encoding", value: "gzip"),
                          HeaderField(name: "Range", value: "bytes=5-")],
                userAgent: "fdl-test/1.0")
            let seen = try await echo(fx, fx.fault.url("_echo"), options: options)
            #expect(seen.headers["x-request-tag"] == "abc")
            #expect(seen.headers["user-agent"] == "fdl-test/1.0")
            #expect(seen.headers["accept-encoding"] == "identity")
            #expect(seen.headers["range"] == nil)
        }
    }

    @Test("a header field or a validator with a line break is refused before anything is sent")
    func lineBreaksAreRefused() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            for field in [HeaderField(name: "X-Tag", value: "a\r\nX-Injected: 1"), HeaderField(name: "X-Tag", value: "a\nb"),
                          HeaderField(name: "X-Tag", value: "a\u{0}b")] {
                let error = await #expect(throws: DownloadError.self) {
                    try await fx.attempt(transport, fx.fault.url("_echo"), into: try fx.staging(), options: TransferOptions(headers: [field]))
                }
                #expect(error?.code == .transport)
                #expect(error?.message.contains("X-Tag") == true)
                #expect(error?.message.contains("Injected") == false)
            }
            // A remembered validator goes out as If-Range: one from forged resume data is refused too.
            let forged = Validator.entityTag("\"v\"\r\nX-Injected: 1")
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin"), into: try fx.staging(copying: 1_000),
                                     validator: forged)
            }
            #expect(error?.code == .transport)
            #expect(try fx.fault.stats().requests == 0)
            await transport.shutdown()
        }
    }

    @Test("a secret field goes to the request's origin only: a redirect elsewhere gets the request without it")
    func secretFieldsStayWithTheirOrigin() async throws {
        try await HTTPFixture.with { fx in
            let fields = [HeaderField(name: "X-Api-Key", value: "s3cret", isSecret: true),
                          HeaderField(name: "X-Tag", value: "plain")]
            let echoURL = { (host: String) in "http://\(host):\(fx.fault.port)/_echo" }
            // The same server as 127.0.0.1 and as localhost: two origins.
            let elsewhere = try await echo(fx, fx.fault.url("r", "location=\(echoURL("localhost"))"),
                                           options: TransferOptions(headers: fields))
            #expect(elsewhere.headers["x-tag"] == "plain")
            #expect(elsewhere.headers["x-api-key"] == nil, "the other origin saw the secret: \(elsewhere.headers)")
            let sameOrigin = try await echo(fx, fx.fault.url("r", "location=\(echoURL("127.0.0.1"))"),
                                            options: TransferOptions(headers: fields))
            #expect(sameOrigin.headers["x-api-key"] == "s3cret")
            // The hops before and after the re-issued request count against one redirect limit:
            // one to the other origin, then 2 (allowed) or 3 (one too many) there.
            let transport = try HTTPTransport(configuration: .init(maxRedirects: 3, proxy: .none))
            let chain = { (hops: Int) in
                fx.fault.url("r", "location=" + "http://localhost:\(fx.fault.port)/small.bin?redirect=\(hops)"
                    .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            }
            try await fx.attempt(transport, chain(2), into: try fx.staging(), options: TransferOptions(headers: fields))
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, chain(3), into: try fx.staging(), options: TransferOptions(headers: fields))
            }
            #expect(error?.code == .tooManyRedirects)
            await transport.shutdown()
        }
    }

    @Test("a per-download proxy receives the request for the absolute URL")
    func proxy() async throws {
        try await HTTPFixture.with { fx in
            let options = TransferOptions(proxy: URL(string: "http://127.0.0.1:\(fx.fault.port)")!)
            let seen = try await echo(fx, URL(string: "http://files.example.invalid/_echo")!, options: options)
            #expect(seen.target == "http://files.example.invalid/_echo")
        }
    }

    @Test("a 407 from the proxy becomes an httpProxy challenge; the answered credential goes to the proxy")
    func proxyAuthentication() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let options = TransferOptions(proxy: URL(string: "http://127.0.0.1:\(fx.fault.port)")!)
            let url = URL(string: "http://files.example.invalid/small.bin?proxyAuth=carol:pw")!
            let seen = ChallengeLog()
            let staging = try fx.staging()
            try await fx.attempt(transport, url, into: staging, options: options) { challenge in
                seen.append(challenge)
                return .useCredential(.password(user: "carol", password: "pw"))
            }
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            guard case .httpProxy(let scheme, let realm) = seen.all.first?.kind else {
                Issue.record("expected an httpProxy challenge, got \(seen.all)")
                return
            }
            #expect(scheme == "Basic")
            #expect(realm == "proxy")

            let refused = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, url, into: try fx.staging(), options: options) { _ in .reject }
            }
            #expect(refused?.code == .authenticationFailed)
            #expect(refused?.statusCode == 407)
            await transport.shutdown()
        }
    }
}
