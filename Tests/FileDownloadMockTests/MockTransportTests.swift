import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

@Suite("MockTransport", .timeLimit(.minutes(1)))
struct MockTransportTests {
    let url = URL(string: "mock://host/file.bin")!
    let content = MockContent.seeded(seed: 9, size: 300_000)

    func mock(_ resource: MockResource? = nil, clock: ManualClock = ManualClock()) -> MockTransport {
        let mock = MockTransport(clock: clock)
        mock.serve(url, resource ?? MockResource(content, chunkSize: 10_000))
        return mock
    }

    @Test("a full download gives the content, after a head with status, length and validator")
    func fullDownload() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let result = try await attempt(mock, url, in: scratch)
        #expect(result.error == nil)
        #expect(result.file == content.data)
        #expect(result.sink.head == TransferHead(disposition: .resumed(at: 0), statusCode: 200,
                                                 expectedLength: 300_000, validator: content.defaultValidator))
        let records = mock.requests(for: url)
        #expect(records.count == 1)
        #expect(records[0].offset == 0 && records[0].attempt == 1 && records[0].outcome == .completed)
        #expect(records[0].bytesDelivered == 300_000)
        #expect(mock.bytesServed(for: url) == 300_000)
    }

    @Test("resume with the right validator continues at the offset with 206")
    func resume() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let result = try await attempt(mock, url, in: scratch, existing: content.bytes(in: 0..<123_456),
                                       validator: content.defaultValidator)
        #expect(result.error == nil)
        #expect(result.sink.head?.disposition == .resumed(at: 123_456))
        #expect(result.sink.head?.statusCode == 206)
        #expect(result.file == content.data)
        #expect(mock.requests(for: url)[0].bytesDelivered == 300_000 - 123_456)
        #expect(mock.requests(for: url)[0].validator == content.defaultValidator)
    }

    @Test("resume with a different or weak validator restarts from zero")
    func validatorMismatch() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let junk = Data(repeating: 0xAA, count: 5000)
        for sent in [Validator.entityTag("\"other\""), .entityTag("W/\(content.defaultValidator.value)")] {
            let result = try await attempt(mock, url, in: scratch, existing: junk, validator: sent)
            #expect(result.error == nil)
            #expect(result.sink.head?.disposition == .restarted(.validatorChanged))
            #expect(result.file == content.data)
        }
    }

    @Test("resume at the full size is complete, sends nothing and leaves the file as it was")
    func complete() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let result = try await attempt(mock, url, in: scratch, existing: content.data, validator: content.defaultValidator)
        #expect(result.error == nil)
        #expect(result.sink.head?.disposition == .complete)
        #expect(result.file == content.data)
        #expect(mock.bytesServed(for: url) == 0)
    }

    @Test("an offset beyond the size restarts with rangeMismatch")
    func beyondSize() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock(MockResource(.bytes(Data("short".utf8))))
        let result = try await attempt(mock, url, in: scratch, existing: Data(count: 50))
        #expect(result.sink.head?.disposition == .restarted(.rangeMismatch))
        #expect(result.file == Data("short".utf8))
    }

    @Test("an ignored range, scripted or by the resource, restarts with rangeIgnored")
    func ignoredRange() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let scripted = mock()
        scripted.script(url, attempts: [.ignoreRange])
        let noRanges = mock(MockResource(content, supportsRanges: false))
        for mock in [scripted, noRanges] {
            let result = try await attempt(mock, url, in: scratch, existing: content.bytes(in: 0..<1000),
                                           validator: content.defaultValidator)
            #expect(result.sink.head?.disposition == .restarted(.rangeIgnored))
            #expect(result.sink.head?.statusCode == 200)
            #expect(result.file == content.data)
        }
        #expect(scripted.unconsumed().isEmpty)
    }

    @Test("a drop writes up to its offset and throws retryable connectionLost; the next attempt resumes")
    func drop() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        mock.script(url, attempts: [.drop(at: 123_000)])
        let first = try await attempt(mock, url, in: scratch)
        #expect(first.downloadError?.code == .connectionLost)
        #expect(first.downloadError?.isRetryable == true)
        #expect(first.file == content.bytes(in: 0..<123_000))
        let second = try await attempt(mock, url, in: scratch, existing: first.file,
                                       validator: first.sink.head?.validator)
        #expect(second.error == nil)
        #expect(second.file == content.data)
        #expect(mock.requests(for: url).map(\.offset) == [0, 123_000])
        #expect(mock.requests(for: url).map(\.outcome) == [.failed(.connectionLost), .completed])
        #expect(mock.bytesServed(for: url) == 300_000)
        #expect(mock.unconsumed().isEmpty)
    }

    @Test("a scripted error is thrown as given at its offset")
    func scriptedError() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        mock.script(url, attempts: [.error(at: 20_000, DownloadError(.protocolViolation, "short body"))])
        let result = try await attempt(mock, url, in: scratch)
        #expect(result.downloadError?.code == .protocolViolation)
        #expect(result.downloadError?.message == "short body")
        #expect(result.file.count == 20_000)
    }

    @Test("a stall parks on the clock after its offset until cancelled, and nothing is written after")
    func stall() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let clock = ManualClock()
        let mock = mock(clock: clock)
        mock.script(url, attempts: [.stall(at: 50_000)])
        let task = Task { try await attempt(mock, url, in: scratch) }
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(400 * 24 * 3600))   // a stall outlasts any advance
        await clock.waitForSleepers(atLeast: 1)
        task.cancel()
        let result = try await task.value
        #expect(result.error is CancellationError)
        #expect(result.file == content.bytes(in: 0..<50_000))
        #expect(result.sink.lateWriteAttempts == 0)
        #expect(mock.requests(for: url)[0].outcome == .cancelled)
        #expect(clock.sleeperCount == 0)
    }

    @Test("chunks are spaced by chunkDelay on the manual clock, and cancellation between them stops the body")
    func chunkDelay() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let clock = ManualClock()
        let mock = mock(MockResource(content, chunkSize: 100_000, chunkDelay: .seconds(1)), clock: clock)
        let task = Task { try await attempt(mock, url, in: scratch) }
        await clock.waitForSleepers(atLeast: 1)
        #expect(mock.requests(for: url)[0].bytesDelivered == 100_000)
        #expect(clock.pendingDeadlines == [.init(offset: .seconds(1))])
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(atLeast: 1)
        #expect(mock.requests(for: url)[0].bytesDelivered == 200_000)
        task.cancel()
        let result = try await task.value
        #expect(result.error is CancellationError)
        #expect(result.file == content.bytes(in: 0..<200_000))
        #expect(result.sink.lateWriteAttempts == 0)
        #expect(clock.sleeperCount == 0)
    }

    @Test("a transfer whose task is already cancelled throws before the head and writes nothing")
    func cancelledBeforeStart() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await attempt(mock, url, in: scratch)
        }
        let result = try await task.value
        #expect(result.error is CancellationError)
        #expect(result.sink.head == nil)
        #expect(result.file.isEmpty)
        #expect(mock.requests(for: url).map(\.outcome) == [.cancelled])
    }

    @Test("maxBytesPerSecond spaces chunks by their size at that rate")
    func rateLimit() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let clock = ManualClock()
        let mock = mock(MockResource(content, chunkSize: 50_000), clock: clock)
        let task = Task {
            try await attempt(mock, url, in: scratch, options: TransferOptions(maxBytesPerSecond: 100_000))
        }
        await clock.waitForSleepers(atLeast: 1)
        #expect(clock.pendingDeadlines == [.init(offset: .milliseconds(500))])
        for _ in 1...5 {   // six chunks of 50,000 bytes: five waits of 0.5 s between them
            await clock.waitForSleepers(atLeast: 1)
            clock.advanceToNextDeadline()
        }
        let result = try await task.value
        #expect(result.file == content.data)
        #expect(clock.now == .init(offset: .milliseconds(2500)))
    }

    @Test("a non-2xx status goes to begin: refused there it is rethrown with nothing written, accepted the body follows")
    func statusValidation() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        mock.script(url, attempts: [.status(503, retryAfter: .seconds(7)), .status(503)])
        let refusal = DownloadError(.badStatus, "refused by the test")
        let existing = content.bytes(in: 0..<1000)
        let refused = try await attempt(mock, url, in: scratch, existing: existing, validator: content.defaultValidator,
                                        validateHead: { head in
                                            if head.statusCode != 206 { throw refusal }
                                        })
        #expect(refused.downloadError?.message == "refused by the test")
        #expect(refused.file == existing)
        #expect(mock.requests(for: url)[0].head == nil)
        let accepted = try await attempt(mock, url, in: scratch)
        #expect(accepted.error == nil)
        #expect(accepted.sink.head?.statusCode == 503)
        #expect(accepted.file == content.data)
        #expect(mock.unconsumed().isEmpty)
    }

    @Test("a Retry-After travels in the head")
    func retryAfter() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        mock.script(url, attempts: [.status(429, retryAfter: .seconds(7))])
        let result = try await attempt(mock, url, in: scratch, validateHead: { head in
            if let error = DownloadError.forStatus(head.statusCode ?? 200, retryAfter: head.retryAfter) { throw error }
        })
        #expect(result.downloadError?.retryAfter == .seconds(7))
        #expect(result.downloadError?.isRetryable == true)
        #expect(result.file.isEmpty)
    }

    @Test("a status with nothing to give is thrown as forStatus when begin accepts it")
    func statusWithoutBody() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        mock.script(url, attempts: [.status(500)])
        let result = try await attempt(mock, url, in: scratch, existing: content.data, validator: content.defaultValidator)
        #expect(result.sink.head?.disposition == .complete)
        #expect(result.downloadError?.code == .badStatus)
        #expect(result.downloadError?.statusCode == 500)
    }

    @Test("an unknown URL is a 404: notFound, not retryable, no byte written")
    func missing() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let missing = URL(string: "mock://host/nothing")!
        let existing = Data("keep".utf8)
        let result = try await attempt(mock, missing, in: scratch, existing: existing)
        #expect(result.downloadError?.code == .notFound)
        #expect(result.downloadError?.isRetryable == false)
        #expect(result.sink.head?.statusCode == 404)
        #expect(result.file == existing)
    }

    @Test("a content change applies to this and later attempts and restarts a resume with the old validator")
    func changeContent() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let newer = MockContent.seeded(seed: 10, size: 300_000)
        mock.script(url, attempts: [.drop(at: 100_000), .changeContent(to: newer)])
        let first = try await attempt(mock, url, in: scratch)
        let old = try #require(first.sink.head?.validator)
        let second = try await attempt(mock, url, in: scratch, existing: first.file, validator: old)
        #expect(second.sink.head?.disposition == .restarted(.validatorChanged))
        #expect(second.sink.head?.validator == newer.defaultValidator)
        #expect(second.file == newer.data)
        let third = try await attempt(mock, url, in: scratch)
        #expect(third.file == newer.data)
        #expect(mock.resource(at: url)?.content == newer)
    }

    @Test("changeContent(of:) and a scripted validator change what is served")
    func changeContentDirectly() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        mock.changeContent(of: url, to: .bytes(Data("v2".utf8)), validator: .entityTag("\"v2\""))
        mock.script(url, attempts: [MockAttempt(newValidator: .entityTag("\"v3\""))])
        let result = try await attempt(mock, url, in: scratch)
        #expect(result.file == Data("v2".utf8))
        #expect(result.sink.head?.validator == .entityTag("\"v3\""))
    }

    @Test("auth: a wrong credential is asked again with a failure count, the right one passes, secrets are not recorded")
    func authentication() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let right = Credential.password(user: "ann", password: "s3cret")
        let mock = mock(MockResource(content, authentication: [.credential(right)]))
        let answers = AnswerQueue([.useCredential(.password(user: "ann", password: "wrong")), .useCredential(right)])
        let result = try await attempt(mock, url, in: scratch, authenticate: answers.answer)
        #expect(result.error == nil)
        #expect(result.file == content.data)
        #expect(await answers.asked.map(\.previousFailureCount) == [0, 1])
        let record = mock.requests(for: url)[0]
        #expect(record.challenges.count == 2)
        #expect(record.credentials.count == 2)
        #expect(!record.credentials.joined().contains("s3cret") && !record.credentials.joined().contains("wrong"))
        #expect(record.credentials.allSatisfy { $0.contains("ann") })
        #expect(!"\(record)".contains("s3cret"))
    }

    @Test("auth: reject fails at once, not retryable, before any head")
    func authenticationRejected() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock(MockResource(content, authentication: [.credential(.bearerToken("t"))]))
        let result = try await attempt(mock, url, in: scratch, authenticate: { _ in .reject })
        #expect(result.downloadError?.code == .authenticationFailed)
        #expect(result.downloadError?.isRetryable == false)
        #expect(result.sink.head == nil)
        #expect(result.file.isEmpty)
    }

    @Test("auth: too many wrong credentials fail the attempt")
    func authenticationExhausted() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock(MockResource(content, authentication: [.credential(.bearerToken("t"))]))
        let result = try await attempt(mock, url, in: scratch, authenticate: { _ in .useCredential(.bearerToken("x")) })
        #expect(result.downloadError?.code == .authenticationFailed)
        #expect(result.downloadError?.isRetryable == false)
        #expect(mock.requests(for: url)[0].challenges.count == 3)
    }

    @Test("auth: default handling uses the URL's user and password, and nothing else")
    func authenticationDefault() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let withUser = URL(string: "mock://ann:pw@host/file.bin")!
        let mock = MockTransport()
        mock.serve(withUser, MockResource(content, authentication: [.credential(.password(user: "ann", password: "pw"))]))
        let passed = try await attempt(mock, withUser, in: scratch)
        #expect(passed.error == nil)
        mock.serve(url, MockResource(content, authentication: [.credential(.password(user: "ann", password: "pw"))]))
        let failed = try await attempt(mock, url, in: scratch)
        #expect(failed.downloadError?.code == .authenticationFailed)
    }

    @Test("auth: a sequence of trust then credential, scripted per attempt; a rejected trust is tlsFailure")
    func authenticationSequence() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let trust = MockAuthentication.trust(.serverTrust(host: "host", port: 443, reason: "self-signed"))
        let login = MockAuthentication.credential(.bearerToken("tok"))
        mock.script(url, attempts: [.authentication([trust, login]), .authentication([trust])])
        let answers = AnswerQueue([.trust(remember: false), .useCredential(.bearerToken("tok")), .reject])
        let passed = try await attempt(mock, url, in: scratch, authenticate: answers.answer)
        #expect(passed.error == nil)
        let rejected = try await attempt(mock, url, in: scratch, authenticate: answers.answer)
        #expect(rejected.downloadError?.code == .tlsFailure)
        let plain = try await attempt(mock, url, in: scratch, authenticate: answers.answer)
        #expect(plain.error == nil)
        #expect(await answers.asked.count == 3)
        #expect(mock.requests(for: url).map(\.challenges.count) == [2, 1, 0])
        #expect(mock.unconsumed().isEmpty)
    }

    @Test("records the request: validator, headers, attempt numbers; sensitive headers print redacted")
    func records() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let headers = [HeaderField(name: "X-Trace", value: "1"), HeaderField(name: "Authorization", value: "Bearer hush")]
        _ = try await attempt(mock, url, in: scratch, options: TransferOptions(headers: headers))
        _ = try await attempt(mock, url, in: scratch)
        let records = mock.requests(for: url)
        #expect(records.map(\.attempt) == [1, 2])
        #expect(records[0].headers == headers)
        #expect(!"\(records[0])".contains("hush"))
        #expect(mock.allRequests.count == 2)
    }

    @Test("unconsumed lists every scripted attempt never used, per URL")
    func unconsumed() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = mock()
        let other = URL(string: "mock://host/other")!
        mock.script(url, attempts: [.drop(at: 10), .ignoreRange])
        mock.script(other, attempts: [.status(500)])
        _ = try await attempt(mock, url, in: scratch)
        #expect(mock.unconsumed() == ["mock://host/file.bin: ignore range", "mock://host/other: status 500"])
    }

    @Test("the capabilities are everything")
    func capabilities() {
        #expect(MockTransport().capabilities == [.resume, .validators, .authentication, .rateLimit,
                                                 .customHeaders, .expectedLength, .ranges])
    }
}
