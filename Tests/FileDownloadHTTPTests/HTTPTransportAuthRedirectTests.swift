import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// Auth challenges through the one door, and the redirect rules.
@Suite("HTTPTransport auth and redirects")
struct HTTPTransportAuthRedirectTests {
    @Test("401 Basic, Digest and Bearer become challenges; the answered credential is used",
          arguments: [("basic:alice:s3cret", "Basic"), ("digest:alice:s3cret", "Digest"), ("bearer:tok3n", "Bearer")])
    func challengeAnswered(auth: String, scheme: String) async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            let seen = ChallengeLog()
            try await fx.attempt(transport, fx.fault.url("small.bin", "auth=\(auth)"), into: staging) { challenge in
                seen.append(challenge)
                return .useCredential(scheme == "Bearer" ? .bearerToken("tok3n") : .password(user: "alice", password: "s3cret"))
            }
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            let challenges = seen.all
            #expect(challenges.count == 1)
            if case .httpServer(let s, let realm) = challenges.first?.kind {
                #expect(s == scheme)
                #expect(realm != nil)
            } else {
                Issue.record("expected an httpServer challenge, got \(challenges)")
            }
            #expect(challenges.first?.previousFailureCount == 0)
            await transport.shutdown()
        }
    }

    @Test("a wrong password is tried a bounded number of times, then authenticationFailed, not retryable")
    func wrongPasswordBounded() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(maxAuthenticationAttempts: 2, proxy: .none))
            let staging = try fx.staging()
            let seen = ChallengeLog()
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "auth=digest:alice:s3cret"), into: staging) { challenge in
                    seen.append(challenge)
                    return .useCredential(.password(user: "alice", password: "wrong"))
                }
            }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.isRetryable == false)
            #expect(error?.statusCode == 401)
            #expect(seen.all.map(\.previousFailureCount) == [0, 1])
            #expect(error.map { !String(describing: $0).contains("wrong") } == true)
            #expect(TestFiles.size(staging) == 0)
            await transport.shutdown()
        }
    }

    @Test("without an answer, URL credentials are the default; with none, the attempt fails")
    func defaultHandling() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            var components = URLComponents(url: fx.fault.url("small.bin", "auth=basic:bob:pw"), resolvingAgainstBaseURL: false)!
            components.user = "bob"
            components.password = "pw"
            let staging = try fx.staging()
            try await fx.attempt(transport, components.url!, into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)

            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "auth=basic:bob:pw"), into: try fx.staging())
            }
            #expect(error?.code == .authenticationFailed)
            await transport.shutdown()
        }
    }

    @Test("a redirect chain is followed; the head names the final URL")
    func redirectChain() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            let sink = try await fx.attempt(transport, fx.fault.url("small.bin", "redirect=3"), into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            #expect(sink.head?.effectiveURL?.query?.contains("redirect=0") == true)
            await transport.shutdown()
        }
    }

    @Test("more redirects than the limit fail with tooManyRedirects")
    func tooManyRedirects() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(maxRedirects: 2, proxy: .none))
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "redirect=3"), into: try fx.staging())
            }
            #expect(error?.code == .tooManyRedirects)
            #expect(error?.isRetryable == false)
            await transport.shutdown()
        }
    }

    @Test("a redirect to file:// or gopher:// is refused", arguments: ["file:///etc/passwd", "gopher://127.0.0.1/x"])
    func redirectToOtherScheme(target: String) async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "location=\(target)"), into: staging)
            }
            #expect(error?.code == .redirectRefused)
            #expect(error?.isRetryable == false)
            #expect(TestFiles.size(staging) == 0)
            await transport.shutdown()
        }
    }

    @Test("a redirect from https to http is refused by default and followed when allowed")
    func httpsToHTTP() async throws {
        try await HTTPFixture.with(tls: true) { fx in
            let target = fx.fault.url("small.bin").absoluteString
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let url = fx.faultTLS!.url("small.bin", "location=\(encoded)")
            let ca = fx.certificates!.caCertificate.path

            let strict = try HTTPTransport(configuration: .init(caBundlePath: ca, proxy: .none))
            let error = await #expect(throws: DownloadError.self) { try await fx.attempt(strict, url, into: try fx.staging()) }
            #expect(error?.code == .redirectRefused)
            #expect(error?.isRetryable == false)
            await strict.shutdown()

            let lenient = try HTTPTransport(configuration: .init(allowsHTTPSToHTTPRedirects: true, caBundlePath: ca, proxy: .none))
            let staging = try fx.staging()
            try await fx.attempt(lenient, url, into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await lenient.shutdown()
        }
    }

    @Test("a connection refused is a retryable connectionFailed")
    func connectionRefused() async throws {
        try await HTTPFixture.with(fault: false) { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let refusing = try RefusingPort()
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, URL(string: "http://127.0.0.1:\(refusing.port)/x")!, into: try fx.staging())
            }
            #expect(error?.code == .connectionFailed)
            #expect(error?.isRetryable == true)
            await transport.shutdown()
        }
    }
}
