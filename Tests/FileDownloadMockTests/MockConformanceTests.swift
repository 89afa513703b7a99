import FileDownload
import FileDownloadConformance
import FileDownloadMock
import FileDownloadTestSupport
import Foundation
import Testing

@Suite("TransportConformance with MockTransport", .timeLimit(.minutes(1)))
struct MockConformanceTests {
    let base = "mock://conformance"
    var resource: URL { URL(string: "\(base)/file.bin")! }
    var stalling: URL { URL(string: "\(base)/stall.bin")! }
    var secret: URL { URL(string: "\(base)/secret.bin")! }
    var noRanges: URL { URL(string: "\(base)/no-ranges.bin")! }
    let size: Int64 = 300 * 1024
    let credential = Credential.password(user: "ann", password: "pw")

    func servedMock() -> MockTransport {
        let mock = MockTransport()
        mock.serve(resource, MockResource(.seeded(seed: 1, size: size), chunkSize: 16 * 1024))
        mock.serve(noRanges, MockResource(.seeded(seed: 1, size: size), chunkSize: 16 * 1024, supportsRanges: false))
        mock.serve(stalling, MockResource(.seeded(seed: 2, size: size), chunkSize: 16 * 1024))
        mock.script(stalling, attempts: [.stall(at: 64 * 1024)])
        mock.serve(secret, MockResource(.seeded(seed: 3, size: size), authentication: [.credential(credential)]))
        return mock
    }

    func fixture(_ mock: MockTransport, scratch: TemporaryDirectory) -> ConformanceFixture {
        let resource = self.resource, secret = self.secret, size = self.size
        return ConformanceFixture(
            resource: resource,
            expectedContent: { mock.resource(at: resource)!.content.data },
            missingResource: URL(string: "\(base)/missing.bin")!,
            rangeIgnoringResource: noRanges,
            changeResource: { mock.changeContent(of: resource, to: .seeded(seed: 99, size: size)) },
            stallingResource: stalling,
            authenticatedResource: (secret, credential),
            authenticatedContent: { mock.resource(at: secret)!.content.data },
            scratchDirectory: scratch.url)
    }

    @Test("MockTransport passes every check, none skipped, and consumes every script")
    func mockPasses() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = servedMock()
        let report = await TransportConformance(transport: mock, fixture: fixture(mock, scratch: scratch)).run()
        #expect(report.passed, "\(report)")
        #expect(report.notApplicable.isEmpty, "\(report)")
        #expect(report.results.map(\.name) == [
            "full download", "resume at half", "resume with a wrong validator", "resume at the full size",
            "range in the middle", "range reaching the end", "range past the end", "range ignored by the server",
            "missing resource", "changed resource", "cancellation", "authentication rejected",
            "authentication with the credential", "nothing written after return",
        ])
        #expect(mock.unconsumed().isEmpty)
        let eighth = size - size / 8
        #expect(mock.requests(for: resource).map { [$0.offset, $0.end ?? -1] } == [
            [0, -1], [size / 2, -1], [size / 2, -1], [size, -1],
            [size / 4, 3 * size / 4], [eighth, size], [eighth, size + 4096], [size + 100, size + 1100],
            [size / 2, -1],
        ])
        // The second sink refused the restart: no head was taken, the attempt failed with its error.
        #expect(mock.requests(for: noRanges).map(\.head?.disposition) == [.restarted(.rangeIgnored), nil])
        #expect(mock.requests(for: noRanges).map(\.outcome) == [.completed, .failed(.validationFailed)])
    }

    @Test("a transport that resumes without checking the validator fails the validator checks")
    func splicingTransportFails() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = servedMock()
        let report = await TransportConformance(transport: ValidatorForgettingTransport(inner: mock),
                                                fixture: fixture(mock, scratch: scratch)).run()
        #expect(!report.passed)
        #expect(Set(report.failures.map(\.name)) == ["resume with a wrong validator", "changed resource"])
        #expect(report.failures.allSatisfy { "\($0)".contains("must restart") }, "\(report)")
    }

    @Test("a transport that swallows cancellation fails the cancellation check")
    func swallowingTransportFails() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = servedMock()
        let report = await TransportConformance(transport: CancellationSwallowingTransport(inner: mock),
                                                fixture: fixture(mock, scratch: scratch)).run()
        #expect(report.failures.map(\.name) == ["cancellation"])
        #expect(report["cancellation"]?.description.contains("returned normally") == true, "\(report)")
    }

    @Test("checks without their fixture part are not applicable, with the reason")
    func minimalFixture() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = servedMock()
        var fixture = fixture(mock, scratch: scratch)
        fixture.changeResource = nil
        fixture.stallingResource = nil
        fixture.authenticatedResource = nil
        fixture.rangeIgnoringResource = nil
        let report = await TransportConformance(transport: mock, fixture: fixture).run()
        #expect(report.passed, "\(report)")
        #expect(report.notApplicable.map(\.name) == [
            "range ignored by the server", "changed resource", "cancellation", "authentication rejected", "authentication with the credential",
            "nothing written after return",
        ])
        #expect(report["cancellation"]?.outcome == .notApplicable("the fixture has no stallingResource"))
    }

    @Test("a transport that lists .ranges but ignores the end fails the range checks")
    func rangeForgettingTransportFails() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = servedMock()
        let report = await TransportConformance(transport: RangeForgettingTransport(inner: mock),
                                                fixture: fixture(mock, scratch: scratch)).run()
        #expect(report.failures.map(\.name) == ["range in the middle", "range past the end"], "\(report)")
        #expect(report["range in the middle"]?.description.contains("past the end") == true, "\(report)")
    }

    @Test("a transport without .ranges skips the range checks and passes the rest")
    func transportWithoutRanges() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = servedMock()
        let report = await TransportConformance(transport: CapabilityHidingTransport(inner: mock, hidden: .ranges),
                                                fixture: fixture(mock, scratch: scratch)).run()
        #expect(report.passed, "\(report)")
        #expect(report.notApplicable.map(\.name) == [
            "range in the middle", "range reaching the end", "range past the end", "range ignored by the server",
        ])
        #expect(report["range past the end"]?.outcome == .notApplicable("the transport does not list .ranges"))
        #expect(mock.requests(for: resource).allSatisfy { $0.end == nil })
    }

    @Test("a resource below 256 KiB is reported, not silently accepted")
    func smallResource() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let mock = servedMock()
        mock.serve(resource, MockResource(.seeded(seed: 1, size: 1000)))
        let report = await TransportConformance(transport: mock, fixture: fixture(mock, scratch: scratch)).run()
        #expect(report["full download"]?.isFailure == true)
        #expect("\(report)".contains("at least 256 KiB"))
    }
}
