import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// `S3Transport` against moto's S3 server with its signature checks on: downloads, resume under
/// the ETag, changed objects, segments, refused credentials, session tokens and profiles.
@Suite("S3 transport against moto", .timeLimit(.minutes(10)))
struct S3TransportTests {
    @Test("a download through the Downloader is byte-exact, the key's space and plus signed as sent")
    func plainDownload() async throws {
        try await S3Fixture.with { fixture in
            let content = try fixture.serve("dir/a b+c.bin", size: 3 * 1024 * 1024 + 7, seed: 1)
            let run = try await fixture.download(fixture.url("dir/a b+c.bin"), transport: try fixture.transport())
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try Data(contentsOf: file) == content)
        }
    }

    @Test("an interrupted download resumes from the bytes on disk under the object's ETag")
    func resume() async throws {
        try await S3Fixture.with { fixture in
            let content = try fixture.serve("resume.bin", size: 1_000_000, seed: 3)
            let transport = try fixture.transport()
            let url = fixture.url("resume.bin")
            let first = try await fixture.attempt(transport, url, into: fixture.directory.file("probe.part"))
            let validator = try #require(first.head?.validator)
            #expect(validator.kind == .entityTag && validator.isStrong)
            let staging = fixture.directory.file("resume.part")
            try content.prefix(400_000).write(to: staging)
            let sink = try await fixture.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .resumed(at: 400_000))
            #expect(sink.head?.expectedLength == 1_000_000)
            #expect(try Data(contentsOf: staging) == content)
            await transport.shutdown()
        }
    }

    @Test("a download paused in the middle resumes and ends byte-exact, not restarted")
    func pauseThenResume() async throws {
        try await S3Fixture.with { fixture in
            let content = try fixture.serve("pause.bin", size: 2 * 1024 * 1024, seed: 16)
            _ = try await SingleDownload.pausedAndResumed(fixture.url("pause.bin"), transport: try fixture.transport(), scheme: "s3",
                                                          directory: fixture.directory, name: "pause.bin", content: content,
                                                          limit: .seconds(90))
        }
    }

    @Test("an object replaced between attempts (same size) starts again from zero: the new object, never spliced")
    func changedObjectRestarts() async throws {
        try await S3Fixture.with { fixture in
            let old = try fixture.serve("change.bin", size: 500_000, seed: 4)
            let transport = try fixture.transport()
            let url = fixture.url("change.bin")
            let validator = try #require(try await fixture.attempt(transport, url, into: fixture.directory.file("probe.part")).head?.validator)
            let new = try fixture.serve("change.bin", size: 500_000, seed: 5)
            #expect(new != old)
            let staging = fixture.directory.file("change.part")
            try old.prefix(200_000).write(to: staging)
            // moto (as S3) ignores If-Range: the 206 of the new object carries another ETag, is
            // refused before a byte, and the same attempt asks for the whole object.
            let sink = try await fixture.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .restarted(.validatorChanged))
            #expect(try Data(contentsOf: staging) == new)
            #expect(sink.head?.validator != validator)
            await transport.shutdown()
        }
    }

    @Test("four connections fetch ranges of one object, byte-exact")
    func segments() async throws {
        try await S3Fixture.with { fixture in
            let content = try fixture.serve("segments.bin", size: 24 * 1024 * 1024, seed: 9)
            let counting = RangeCountingTransport(try fixture.transport())
            let run = try await SingleDownload.run(fixture.url("segments.bin"), transport: counting, schemes: "s3",
                                                   directory: fixture.directory, maxConnections: 4, limit: .seconds(120))
            #expect(try Data(contentsOf: try #require(run.file, "\(String(describing: run.error))")) == content)
            #expect(counting.ranged.withLock { $0 } >= 2)
        }
    }

    @Test("a wrong secret is refused: authenticationFailed with status 403, not retried, the access key shown masked")
    func wrongSecret() async throws {
        try await S3Fixture.with { fixture in
            try fixture.serve("secret.bin", size: 10_000, seed: 6)
            var environment = fixture.server.environment()
            environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
            let run = try await fixture.download(fixture.url("secret.bin"), transport: try fixture.transport(environment: environment))
            let error = try #require(run.error)
            #expect(error.code == .authenticationFailed)
            #expect(error.statusCode == 403)
            #expect(!error.isRetryable)
            #expect(error.message.contains("secret access key"))
            #expect(error.message.contains("AWS_ACCESS_KEY_ID"))
            #expect(!error.message.contains(fixture.server.accessKeyID))
            #expect(!error.message.contains("not-the-secret"))
            #expect(run.events.filter { if case .interrupted = $0 { true } else { false } }.isEmpty)
        }
    }

    @Test("temporary credentials work with their session token and are refused without it")
    func sessionToken() async throws {
        try await S3Fixture.with { fixture in
            let content = try fixture.serve("token.bin", size: 200_000, seed: 7)
            let run = try await fixture.download(fixture.url("token.bin"),
                                                 transport: try fixture.transport(environment: fixture.server.environment(session: true)))
            #expect(try Data(contentsOf: try #require(run.file, "\(String(describing: run.error))")) == content)
            var withoutToken = fixture.server.environment(session: true)
            withoutToken["AWS_SESSION_TOKEN"] = nil
            let refused = try await fixture.download(fixture.url("token.bin"), transport: try fixture.transport(environment: withoutToken))
            #expect(refused.error?.code == .authenticationFailed)
        }
    }

    @Test("a profile of ~/.aws/credentials and ~/.aws/config (HOME a scratch directory) signs; --profile wins over the environment's keys")
    func profiles() async throws {
        try await S3Fixture.with { fixture in
            let content = try fixture.serve("profile.bin", size: 100_000, seed: 8)
            let home = try TemporaryDirectory("s3-home")
            defer { home.remove() }
            try FileManager.default.createDirectory(at: home.file(".aws"), withIntermediateDirectories: true)
            try """
                # the user's keys
                [dev]
                aws_access_key_id = \(fixture.server.accessKeyID)
                aws_secret_access_key = \(fixture.server.secretAccessKey)
                [temporary]
                aws_access_key_id=\(fixture.server.sessionAccessKeyID)
                aws_secret_access_key=\(fixture.server.sessionSecretAccessKey)
                aws_session_token=\(fixture.server.sessionToken)

                """.write(to: home.file(".aws/credentials"), atomically: true, encoding: .utf8)
            try """
                [profile dev]
                region = us-east-1
                endpoint_url = \(fixture.server.endpoint.absoluteString)
                s3 =
                  addressing_style = path
                [profile temporary]
                endpoint_url = \(fixture.server.endpoint.absoluteString)

                """.write(to: home.file(".aws/config"), atomically: true, encoding: .utf8)
            let url = fixture.url("profile.bin")
            // AWS_PROFILE, nothing else: the endpoint and region come from the config file.
            let viaVariable = try await fixture.download(url, transport: try fixture.transport(environment: ["HOME": home.path, "AWS_PROFILE": "dev"]))
            #expect(try Data(contentsOf: try #require(viaVariable.file, "\(String(describing: viaVariable.error))")) == content)
            // A profile with a session token.
            let temporary = try await fixture.download(url, transport: try fixture.transport(environment: ["HOME": home.path], profile: "temporary"))
            #expect(temporary.file != nil, "\(String(describing: temporary.error))")
            // The configuration's profile wins over wrong keys in the environment (as aws --profile).
            let wrongKeys = ["HOME": home.path, "AWS_ACCESS_KEY_ID": "AKIAWRONGWRONGWRONG", "AWS_SECRET_ACCESS_KEY": "wrong"]
            let explicit = try await fixture.download(url, transport: try fixture.transport(environment: wrongKeys, profile: "dev"))
            #expect(explicit.file != nil, "\(String(describing: explicit.error))")
            // Without the profile, those keys are used, and refused.
            let environmentKeys = try await fixture.download(url, transport: try fixture.transport(
                environment: wrongKeys.merging(["AWS_ENDPOINT_URL": fixture.server.endpoint.absoluteString]) { $1 }))
            #expect(environmentKeys.error?.code == .authenticationFailed)
            // A profile in neither file.
            let missing = try await fixture.download(url, transport: try fixture.transport(environment: ["HOME": home.path], profile: "nobody"))
            #expect(missing.error?.code == .authenticationFailed)
            #expect(missing.error?.message.contains("nobody") == true)
        }
    }

    @Test("a missing key is notFound, naming the object")
    func missingObject() async throws {
        try await S3Fixture.with { fixture in
            try fixture.serve("present.bin", size: 1000, seed: 1)
            let run = try await fixture.download(fixture.url("absent.bin"), transport: try fixture.transport())
            #expect(run.error?.code == .notFound)
            #expect(run.error?.message.contains("s3://fdl-test/absent.bin") == true)
        }
    }
}

/// Forwards to a transport and counts the ranged requests (`TransferRequest.end` set).
final class RangeCountingTransport: Transport {
    let inner: any Transport
    let ranged = Mutex(0)

    init(_ inner: any Transport) { self.inner = inner }

    var capabilities: TransportCapabilities { inner.capabilities }

    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        if request.end != nil { ranged.withLock { $0 += 1 } }
        try await inner.transfer(request, into: writer)
    }

    func shutdown() async { await inner.shutdown() }
}
