import FileDownload
import FileDownloadHTTP
import Foundation
import Testing

/// The transport alone against the fault server: each fault maps to the right error or head.
@Suite("HTTPTransport against the fault server")
struct HTTPTransportFaultTests {
    @Test("a connection dropped mid-body is a retryable connectionLost; the next attempt resumes byte-exact")
    func dropThenResume() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let url = fx.fault.url("small.bin", "drop=100000")
            let staging = try fx.staging()
            let error = await #expect(throws: DownloadError.self) { try await fx.attempt(transport, url, into: staging) }
            #expect(error?.code == .connectionLost)
            #expect(error?.isRetryable == true)
            #expect(TestFiles.size(staging) == 100_000)
            let validator = try await fx.validator(of: "small.bin", transport)
            let sink = try await fx.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .resumed(at: 100_000))
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }

    @Test("a body shorter than its Content-Length is a retryable connectionLost")
    func shortBody() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "short=777"), into: staging)
            }
            #expect(error?.code == .connectionLost)
            #expect(error?.isRetryable == true)
            #expect(TestFiles.size(staging) == Int64(HTTPFixture.smallSize - 777))
            await transport.shutdown()
        }
    }

    @Test("a stalled server hits the request (idle) timeout: retryable timedOut")
    func stallTimesOut() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            let options = TransferOptions(requestTimeout: .seconds(1))
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "stall=5000"), into: staging, options: options)
            }
            #expect(error?.code == .timedOut)
            #expect(error?.isRetryable == true)
            await transport.shutdown()
        }
    }

    @Test("cancelling the task stops a stalled transfer and nothing is written after transfer returns")
    func cancelStopsPromptly() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            let offset = try TransferSink(path: staging.path, requestedOffset: 0)
            let request = TransferRequest(downloadID: "c", url: fx.fault.url("small.bin", "stall=50000"))
            let task = Task { try await transport.transfer(request, into: offset) }
            while offset.fileLength < 50_000 { await Task.yield() }
            task.cancel()
            let result = await task.result
            offset.seal()
            #expect(throws: DownloadError.self) { try result.get() }
            if case .failure(let error as DownloadError) = result { #expect(error.code == .cancelled) }
            #expect(offset.lateWriteAttempts == 0)
            #expect(offset.fileLength == 50_000)
            await transport.shutdown()
        }
    }

    @Test("a server that ignores the range (200) restarts from zero and says so")
    func rangeIgnored() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let url = fx.fault.url("small.bin", "ignoreRange=1")
            let validator = try await fx.validator(of: "small.bin", transport)
            let staging = try fx.staging(copying: 5000)
            let sink = try await fx.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .restarted(.rangeIgnored))
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }

    @Test("a wrong Content-Range fails retryably, and the next attempt restarts from zero without a range")
    func wrongContentRange() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let url = fx.fault.url("small.bin", "wrongRange=1")
            let validator = try await fx.validator(of: "small.bin", transport)
            let staging = try fx.staging(copying: 80_000)
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, url, into: staging, validator: validator)
            }
            #expect(error?.code == .protocolViolation)
            #expect(error?.isRetryable == true)
            #expect(TestFiles.size(staging) == 80_000)  // nothing spliced
            let sink = try await fx.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .restarted(.rangeMismatch))
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }

    @Test("a file changed between attempts (same size, new ETag) restarts with validatorChanged")
    func fileChangedBetweenAttempts() async throws {
        try await HTTPFixture.with { fx in
            let newSHA = try TestFiles.write(fx.served.appendingPathComponent("v2.bin"), size: HTTPFixture.smallSize, seed: 2)
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let url = fx.fault.url("x", "versions=small.bin,v2.bin&drop=150000")
            let staging = try fx.staging()
            let first = try TransferSink(path: staging.path, requestedOffset: 0)
            await #expect(throws: DownloadError.self) {
                try await transport.transfer(TransferRequest(downloadID: "v", url: url), into: first)
            }
            first.seal()
            let validator = try #require(first.head?.validator)
            let sink = try await fx.attempt(transport, url, into: staging, validator: validator)
            #expect(sink.head?.disposition == .restarted(.validatorChanged))
            #expect(sink.head?.validator != validator)
            #expect(try TestFiles.sha256(staging) == newSHA)
            await transport.shutdown()
        }
    }

    @Test("a weak ETag is never sent in If-Range: the resume asks for the whole file")
    func weakETagNotUsed() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let url = fx.fault.url("small.bin", "weakEtag=1")
            let staging = try fx.staging(copying: 5000)
            let sink = try await fx.attempt(transport, url, into: staging, validator: .entityTag("W/\"anything\""))
            #expect(sink.head?.disposition == .restarted(.resumeUnsupported))
            #expect(sink.head?.statusCode == 200)
            #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            await transport.shutdown()
        }
    }

    @Test("a 404 error page reaches the status check, not the file", arguments: [404, 500])
    func errorPageNeverWritten(status: Int) async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging(copying: 1000)
            let before = try TestFiles.sha256(staging)
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "status=\(status)"), into: staging)
            }
            #expect(error?.statusCode == status)
            #expect(error?.code == (status == 404 ? .notFound : .badStatus))
            #expect(error?.isRetryable == (status == 500))
            #expect(try TestFiles.sha256(staging) == before)
            await transport.shutdown()
        }
    }

    @Test("429 with Retry-After is retryable and carries the delay")
    func tooManyRequests() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, fx.fault.url("small.bin", "status=429&retryAfter=7"), into: try fx.staging())
            }
            #expect(error?.isRetryable == true)
            #expect(error?.retryAfter == .seconds(7))
            await transport.shutdown()
        }
    }

    @Test("connections are reused between sequential transfers")
    func connectionReuse() async throws {
        try await HTTPFixture.with { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let before = try fx.fault.stats()
            for _ in 0..<5 {
                let staging = try fx.staging()
                try await fx.attempt(transport, fx.fault.url("small.bin"), into: staging)
                #expect(try TestFiles.sha256(staging) == fx.smallSHA)
            }
            let after = try fx.fault.stats()
            #expect(after.requests - before.requests == 5)  // /_stats is not counted
            #expect(after.connections - before.connections == 2)  // one for the files, one for stats
            await transport.shutdown()
        }
    }
}
