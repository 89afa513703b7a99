import FileDownload
import FileDownloadHTTP
import Foundation
import Testing

/// The transport alone against nginx: plain, resumed, changed, complete, HTTPS trust.
@Suite("HTTPTransport against nginx")
struct HTTPTransportNginxTests {
    @Test("a plain download matches the served file, with length and a strong ETag in the head")
    func plainDownload() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            let sink = try await fx.attempt(transport, fx.nginx!.fileURL("small.bin"), into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            let head = try #require(sink.head)
            #expect(head.statusCode == 200)
            #expect(head.disposition == .resumed(at: 0))
            #expect(head.expectedLength == Int64(HTTPFixture.smallSize))
            #expect(head.validator?.kind == .entityTag)
            #expect(head.validator?.isStrong == true)
            await transport.shutdown()
        }
    }

    @Test("a resume with the right validator appends from the offset (206, If-Range)")
    func resumeAppends() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let first = try fx.staging()
            let validator = try #require(try await fx.attempt(transport, fx.nginx!.fileURL("small.bin"), into: first).head?.validator)
            let staging = try fx.staging(copying: 123_457)
            let sink = try await fx.attempt(transport, fx.nginx!.fileURL("small.bin"), into: staging, validator: validator)
            #expect(sink.head?.disposition == .resumed(at: 123_457))
            #expect(sink.head?.statusCode == 206)
            #expect(sink.head?.expectedLength == Int64(HTTPFixture.smallSize))
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }

    @Test("a resume whose validator no longer matches restarts from zero (200 to If-Range)")
    func changedValidatorRestarts() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging(copying: 1000)
            try Data(repeating: 0xEE, count: 1000).write(to: staging)  // old bytes of another version
            let sink = try await fx.attempt(transport, fx.nginx!.fileURL("small.bin"), into: staging,
                                            validator: .entityTag("\"old-version\""))
            #expect(sink.head?.disposition == .restarted(.validatorChanged))
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }

    @Test("416 whose Content-Range total equals the bytes on disk means complete")
    func rangeNotSatisfiableMeansComplete() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging(copying: HTTPFixture.smallSize)
            let sink = try await fx.attempt(transport, fx.nginx!.fileURL("small.bin"), into: staging)
            #expect(sink.head?.disposition == .complete)
            #expect(sink.head?.expectedLength == Int64(HTTPFixture.smallSize))
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }

    @Test("HTTPS with the test CA configured works; with default trust it fails as tlsFailure, not retryable")
    func httpsTrust() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let url = fx.nginx!.fileURL("small.bin", https: true)
            let trusting = try HTTPTransport(configuration: .init(caBundlePath: fx.certificates!.caCertificate.path, proxy: .none))
            let staging = try fx.staging()
            try await fx.attempt(trusting, url, into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await trusting.shutdown()

            let strict = try HTTPTransport(configuration: .init(proxy: .none))
            let rejected = try fx.staging()
            let asked = Counter()
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(strict, url, into: rejected) { challenge in
                    if case .serverTrust = challenge.kind { asked.increment() }
                    return .performDefaultHandling
                }
            }
            #expect(error?.code == .tlsFailure)
            #expect(error?.isRetryable == false)
            #expect(asked.value == 1)
            #expect(TestFiles.size(rejected) == 0)
            await strict.shutdown()
        }
    }

    @Test("a serverTrust challenge answered with trust goes on for that attempt only")
    func serverTrustAnsweredWithTrust() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            try await fx.attempt(transport, fx.nginx!.fileURL("small.bin", https: true), into: staging) { challenge in
                if case .serverTrust(let host, _, _) = challenge.kind, host == "127.0.0.1" { return .trust(remember: false) }
                return .reject
            }
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }

    @Test("a client certificate from the configuration is presented; without it nginx refuses (400)")
    func clientCertificate() async throws {
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let certificates = fx.certificates!
            let url = URL(string: "https://127.0.0.1:\(fx.nginx!.mutualTLSPort)/small.bin")!
            let withCertificate = try HTTPTransport(configuration: .init(
                caBundlePath: certificates.caCertificate.path,
                clientCertificatePath: certificates.clientCertificate.path,
                clientKeyPath: certificates.clientKey.path, proxy: .none))
            let staging = try fx.staging()
            try await fx.attempt(withCertificate, url, into: staging)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await withCertificate.shutdown()

            let without = try HTTPTransport(configuration: .init(caBundlePath: certificates.caCertificate.path, proxy: .none))
            let refused = try fx.staging()
            let error = await #expect(throws: DownloadError.self) { try await fx.attempt(without, url, into: refused) }
            #expect(error?.statusCode == 400)
            #expect(error?.isRetryable == false)
            #expect(TestFiles.size(refused) == 0)
            await without.shutdown()
        }
    }

    @Test("twelve transfers at once over three I/O threads all arrive byte-exact; ioThreads is clamped to 1...16")
    func severalIOThreads() async throws {
        #expect(HTTPTransport.Configuration(ioThreads: 0).ioThreads == 1)
        #expect(HTTPTransport.Configuration(ioThreads: 99).ioThreads == 16)
        #expect(HTTPTransport.Configuration().ioThreads == min(4, ProcessInfo.processInfo.activeProcessorCount))
        try await HTTPFixture.with(nginx: true, fault: false) { fx in
            let transport = try HTTPTransport(configuration: .init(ioThreads: 3, proxy: .none))
            let url = fx.nginx!.fileURL("small.bin")
            let stagings = try (0..<12).map { _ in try fx.staging() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (i, staging) in stagings.enumerated() {
                    group.addTask { try await fx.attempt(transport, url, into: staging, id: "t\(i)") }
                }
                try await group.waitForAll()
            }
            for staging in stagings { #expect(try TestFiles.sha256(staging) == fx.smallSHA) }
            await transport.shutdown()
        }
    }
}
