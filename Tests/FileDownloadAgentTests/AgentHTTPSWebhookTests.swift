import Crypto
import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// `https://` webhooks (docs/agent-api.md, "Completions delivered until acknowledged"): nginx with
/// a certificate of the test's own CA answers on HTTPS and passes `/hook` to a
/// ``WebhookReceiver``; `/moved` answers 302 to `/hook`.
@Suite("fdl agent: https:// webhooks, verified", .serialized)
struct AgentHTTPSWebhookTests {
    /// No CA from the environment unless the test gives one.
    static let noCAVariables: [String: String?] = ["SSL_CERT_FILE": nil, "SSL_CERT_DIR": nil, "CURL_CA_BUNDLE": nil]

    @Test("an https:// webhook whose certificate the given CA signed gets the completion, signed; a 302 is a failed try, not followed",
          arguments: ["--webhook-cacert", "SSL_CERT_FILE"])
    func trustedReceiver(trustFrom: String) async throws {
        try await withReceiver { server, root, out, tls, hooks in
            let data = sampleBytes(40_000, seed: 11)
            _ = try root.createFile("a.bin", contents: data)
            _ = try root.createFile("r.bin", contents: sampleBytes(1_000, seed: 12))
            let secret = "the https secret"
            let secretFile = try out.createFile("secret", contents: Data(secret.utf8))
            let ca = tls.certificates.caCertificate.path
            var environment = Self.noCAVariables
            var arguments = ["--webhook", tls.url("hook"), "--webhook-secret-file", secretFile, "--delivery-lifetime", "3"]
                + AgentDeliveryTests.quickRetries
            if trustFrom == "SSL_CERT_FILE" { environment["SSL_CERT_FILE"] = ca } else { arguments += [trustFrom, ca] }
            let agent = try AgentFixture(arguments: arguments, environment: environment)
            do {
                try await agent.start()
                _ = try await agent.client.start(id: "a", url: server.url("a.bin"), destination: agent.downloads.appending(path: "a.bin"))
                _ = try await agent.client.submit(AgentDownloadRequest(
                    id: "r", url: server.url("r.bin").absoluteString, destination: agent.downloads.appending(path: "r.bin").path,
                    notify: AgentNotify(webhook: tls.url("moved"))))
                try await poll("a's completion is acknowledged", limit: .seconds(60)) { hooks.acknowledgedKeys.count == 1 }
                var dead: [[String: Any]] = []
                try await poll("r's delivery to the redirecting URL is a dead letter", limit: .seconds(60), interval: .milliseconds(50)) {
                    dead = (try? await AgentDeliveryTests.deadLetters(agent)) ?? []
                    return dead.count == 1
                }
                _ = await agent.stop()

                let call = try #require(hooks.calls.first)
                #expect(hooks.calls.count == 1, "the redirect was not followed to /hook: \(hooks.calls.map(\.key))")
                let expected = "sha256=" + hexString(HMAC<SHA256>.authenticationCode(for: Data(((call.key ?? "") + ".").utf8) + call.body,
                                                                                     using: SymmetricKey(data: Data(secret.utf8))))
                #expect(call.signature == expected)
                if case .completed(let id, let file) = try JSONDecoder().decode(DownloadEvent.self, from: call.body) {
                    #expect(id == "a")
                    #expect(try Data(contentsOf: file) == data)
                } else {
                    Issue.record("not a completed event: \(String(decoding: call.body, as: UTF8.self))")
                }
                let letter = try #require(dead.first)
                #expect(letter["id"] as? String == "r")
                #expect((letter["attempts"] as? Int ?? 0) >= 2, "retried: \(letter)")
                #expect((letter["lastError"] as? String)?.contains("302") == true, "\(letter)")
            } catch {
                await agent.remove()
                throw error
            }
            await agent.remove()
        }
    }

    @Test("an https:// webhook whose certificate no trusted CA signed is never sent the event: each try fails, is retried, and ends a dead letter")
    func untrustedReceiver() async throws {
        try await withReceiver { server, root, _, tls, hooks in
            _ = try root.createFile("u.bin", contents: sampleBytes(5_000, seed: 13))
            let agent = try AgentFixture(arguments: ["--webhook", tls.url("hook"), "--delivery-lifetime", "1"] + AgentDeliveryTests.quickRetries,
                                         environment: Self.noCAVariables)
            do {
                try await agent.start()
                _ = try await agent.client.start(id: "u", url: server.url("u.bin"), destination: agent.downloads.appending(path: "u.bin"))
                var dead: [[String: Any]] = []
                try await poll("the delivery is a dead letter", limit: .seconds(60), interval: .milliseconds(50)) {
                    dead = (try? await AgentDeliveryTests.deadLetters(agent)) ?? []
                    return dead.count == 1
                }
                _ = await agent.stop()
                let letter = try #require(dead.first)
                #expect((letter["attempts"] as? Int ?? 0) >= 2, "retried: \(letter)")
                let problem = letter["lastError"] as? String ?? ""
                #expect(problem.lowercased().contains("certificate"), "\(problem)")
                #expect(hooks.calls.isEmpty, "nothing reached the receiver through an unverified connection")
            } catch {
                await agent.remove()
                throw error
            }
            await agent.remove()
        }
    }

    /// nginx on HTTPS in front of the receiver, and what it needs.
    struct TLSFront {
        let certificates: TestCertificates
        let nginx: NginxServer

        func url(_ path: String) -> String { nginx.fileURL(path, https: true).absoluteString }
    }

    /// Runs `body` with a file server, its root, an output directory, nginx on HTTPS (the test CA's
    /// certificate) passing `/hook` to a receiver answering 200, and that receiver; stops them after.
    private func withReceiver(_ body: (FaultServer, TemporaryDirectory, TemporaryDirectory, TLSFront, WebhookReceiver) async throws -> Void)
        async throws {
        try await FaultServer.withRootAndOutput { server, root, out in
            let hooks = try await WebhookReceiver.start(status: 200)
            let front: TLSFront
            do {
                let certificates = try TestCertificates(in: out.url)
                let www = out.file("www")
                try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
                let nginx = try NginxServer(root: www, certificates: certificates, locations: """
                    location = /hook { proxy_pass http://127.0.0.1:\(hooks.port)/hook; }
                    location = /moved { return 302 /hook; }
                    """)
                front = TLSFront(certificates: certificates, nginx: nginx)
            } catch {
                await hooks.stop()
                throw error
            }
            do {
                try await body(server, root, out, front, hooks)
            } catch {
                front.nginx.stop()
                await hooks.stop()
                throw error
            }
            front.nginx.stop()
            await hooks.stop()
        }
    }
}
