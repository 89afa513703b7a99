public import FileDownload
import Foundation

/// Runs any `Transport` through the checks of its contract, against a server you provide.
///
/// ```swift
/// let fixture = ConformanceFixture(
///     resource: URL(string: "http://127.0.0.1:\(port)/file.bin")!,
///     expectedContent: { try Data(contentsOf: servedFile) },
///     missingResource: URL(string: "http://127.0.0.1:\(port)/missing")!,
///     scratchDirectory: scratch)
/// let report = await TransportConformance(transport: MyTransport(), fixture: fixture).run()
/// #expect(report.passed, "\(report)")
/// ```
///
/// It depends on no test framework: call it from Swift Testing, XCTest or a plain executable and
/// assert on the ``ConformanceReport``.
///
/// ## The checks, in this order
/// 1. `full download`: a download from offset 0 gives the content; the head (`ResumeDisposition.resumed(at:)`
///    at 0, the right length if any, a validator when `TransportCapabilities.validators` is listed)
///    comes before any byte.
/// 2. `resume at half`: with half the content on disk, the validator from check 1 and the content's
///    length as `TransferRequest.expectedLength` (as the downloader sends them), the transport
///    reports `ResumeDisposition.resumed(at:)` at the half (or a restart when it lacks
///    `TransportCapabilities.resume`) and the file ends byte-identical.
/// 3. `resume with a wrong validator`: with garbage on disk and a validator of the right kind but
///    another value, it restarts from zero and the file equals the content.
/// 4. `resume at the full size`: with the whole content on disk, the right validator and the
///    content's length as `TransferRequest.expectedLength`, it reports
///    `ResumeDisposition.complete` (or resumes with an empty body) and the file is unchanged.
/// 5. `range in the middle` (`TransportCapabilities.ranges`): with the first quarter on disk, the
///    validator and the length, the range from the first to the third quarter
///    (`TransferRequest.end`) reports `ResumeDisposition.resumed(at:)` at the quarter and leaves
///    exactly the first three quarters of the content on disk: the writer, made for the range,
///    refuses a byte past its end.
/// 6. `range reaching the end` (`.ranges`): a range that ends exactly at the content's length, and
///    one whose end lies 4 KiB past it, each give the bytes up to the end of the content.
/// 7. `range past the end` (`.ranges`): a range starting 100 bytes past the end fails with
///    `DownloadError.Code.rangeNotSatisfiable`, not retryable, without a head; the file is unchanged.
/// 8. `range ignored by the server` (`.ranges` and ``ConformanceFixture/rangeIgnoringResource``):
///    a range of the middle half asked of a server that ignores ranges reports
///    `ResumeDisposition.restarted(_:)` (`RestartReason.rangeIgnored`) and, into a writer that takes
///    it, delivers the whole content from zero; into a writer that refuses a restart (as a
///    segment's does) the transfer rethrows the writer's error and the file keeps its bytes.
/// 9. `missing resource`: throws `DownloadError.Code.notFound`, not retryable, and writes no byte.
/// 10. `changed resource`: after ``ConformanceFixture/changeResource``, a resume with the old
///    validator restarts and the file equals the new content.
/// 11. `cancellation`: the transfer of ``ConformanceFixture/stallingResource`` is cancelled once its
///    head arrived, and it ends within ``cancellationLimit`` (a watchdog, 10 s unless the caller sets
///    another) with `CancellationError` or `DownloadError.Code.cancelled`.
/// 12. `authentication rejected`: answering `AuthDisposition.reject` fails with
///    `DownloadError.Code.authenticationFailed`, not retryable, after asking a challenge.
/// 13. `authentication with the credential`: answering with the fixture's credential gives the file.
///    Trust questions (TLS server trust, SSH host key) are answered
///    `AuthDisposition.performDefaultHandling` in checks 12 and 13.
/// 14. `nothing written after return`: at the end of the run, the cancelled transfer of check 11
///     attempted no late write (no `TransferWriter.write(_:)` after it returned) and its file did
///     not grow.
///
/// Every writer refuses a status outside 2xx as the downloader does by default. Checks whose fixture
/// part is absent, or that the transport's capabilities exclude, are
/// ``ConformanceResult/Outcome/notApplicable(_:)``. The checks run one after the other; the staging
/// files stay in ``ConformanceFixture/scratchDirectory``.
public struct TransportConformance: Sendable {
    /// The transport under test.
    public var transport: any Transport
    /// The server side.
    public var fixture: ConformanceFixture

    /// The longest a cancelled transfer may take to end before the cancellation check fails. It is a
    /// watchdog, not a speed goal: it keeps a transport that ignores cancellation from hanging the
    /// suite. A transfer that honours cancellation ends in milliseconds; the default leaves room for a
    /// busy two-core machine whose threads are all taken for a while.
    public var cancellationLimit: Duration

    /// A suite for `transport` against `fixture`.
    ///
    /// - Parameters:
    ///   - transport: the transport under test.
    ///   - fixture: the server side: its resources and what they should contain.
    ///   - cancellationLimit: the cancellation check's watchdog (10 s by default).
    public init(transport: any Transport, fixture: ConformanceFixture, cancellationLimit: Duration = .seconds(10)) {
        self.transport = transport
        self.fixture = fixture
        self.cancellationLimit = cancellationLimit
    }
    /// The longest the suite waits for the head of the stalling resource.
    public static let headLimit: Duration = .seconds(10)

    /// Runs every check in the documented order and returns all results. Never throws: a check
    /// that cannot run for an unexpected reason fails with that reason.
    public func run() async -> ConformanceReport {
        let context = ConformanceContext()
        var results: [ConformanceResult] = []
        let checks: [(String, () async throws -> ConformanceResult.Outcome)] = [
            ("full download", { try await fullDownload(context) }),
            ("resume at half", { try await resumeAtHalf(context) }),
            ("resume with a wrong validator", { try await resumeWithWrongValidator(context) }),
            ("resume at the full size", { try await resumeAtFullSize(context) }),
            ("range in the middle", { try await rangeInTheMiddle(context) }),
            ("range reaching the end", { try await rangeReachingTheEnd(context) }),
            ("range past the end", { try await rangePastTheEnd(context) }),
            ("range ignored by the server", { try await rangeIgnored(context) }),
            ("missing resource", { try await missingResource() }),
            ("changed resource", { try await changedResource(context) }),
            ("cancellation", { try await cancellation(context) }),
            ("authentication rejected", { try await authenticationRejected() }),
            ("authentication with the credential", { try await authenticationWithCredential() }),
            ("nothing written after return", { try nothingWrittenAfterReturn(context) }),
        ]
        for (name, check) in checks {
            let outcome: ConformanceResult.Outcome
            do {
                outcome = try await check()
            } catch let failure as CheckFailure {
                outcome = .failed(failure.message)
            } catch {
                outcome = .failed("the check could not run: \(error)")
            }
            results.append(ConformanceResult(name: name, outcome: outcome))
        }
        return ConformanceReport(results: results)
    }

    /// One attempt at `url` through a fresh staging file holding `existing`.
    /// With an `end`, the attempt asks for the range from the end of `existing` to `end`, through
    /// a sink made for that range that refuses a restart unless `acceptsRestart`.
    func attempt(
        _ name: String, _ url: URL, existing: Data = Data(), end: Int64? = nil, acceptsRestart: Bool = true,
        validator: Validator? = nil, expectedLength: Int64? = nil,
        authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling }
    ) async throws -> ConformanceAttempt {
        let (path, sink) = try ConformanceAttempt.prepare(name, in: fixture.scratchDirectory, existing: existing, end: end,
                                                          acceptsRestart: acceptsRestart)
        let request = TransferRequest(downloadID: "conformance-\(name)", url: url, offset: Int64(existing.count), end: end,
                                      validator: validator, expectedLength: expectedLength, authenticate: authenticate)
        var failure: (any Error)?
        do { try await transport.transfer(request, into: sink) } catch { failure = error }
        sink.seal()
        return ConformanceAttempt(path: path, sink: sink, error: failure, file: try ConformanceAttempt.contents(of: path))
    }
}
