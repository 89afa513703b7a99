@testable import FileDownloadHTTP
import FileDownload
import Testing

/// The decision table of docs/http.md, without a server.
@Suite("ResponsePlan and ContentRange")
struct ResponsePlanTests {
    private func response(_ status: Int, _ fields: [(String, String)]) -> ResponseHead {
        .parsing(status, fields)
    }

    private func disposition(_ plan: ResponsePlan) -> ResumeDisposition? {
        if case .deliver(let head) = plan { head.disposition } else { nil }
    }

    @Test("Content-Range parses both forms and refuses nonsense")
    func contentRange() {
        #expect(ContentRange(parsing: "bytes 10-19/100") == ContentRange(parsing: "bytes 10-19/100"))
        #expect(ContentRange(parsing: "bytes 10-19/100")?.first == 10)
        #expect(ContentRange(parsing: "bytes 10-19/*")?.total == nil)
        #expect(ContentRange(parsing: "bytes */100")?.total == 100)
        #expect(ContentRange(parsing: "bytes */100")?.first == nil)
        #expect(ContentRange(parsing: "bytes 19-10/100") == nil)
        #expect(ContentRange(parsing: "bytes 10-100/100") == nil)
        #expect(ContentRange(parsing: "items 1-2/3") == nil)
        #expect(ContentRange(parsing: "bytes */*") == nil)
        // A range whose byte count does not fit in Int64 (it trapped the 206 length check).
        #expect(ContentRange(parsing: "bytes 0-9223372036854775807/*") == nil)
        #expect(ContentRange(parsing: "bytes 0-9223372036854775806/*")?.count == .max)
        let huge = response(206, [("Content-Range", "bytes 0-9223372036854775807/*"), ("Content-Length", "10")])
        guard case .restartNextAttempt(.rangeMismatch, _) = ResponsePlan.decide(
            response: huge, offset: 0, validator: nil, sentRange: false, restartReason: .resumeUnsupported, effectiveURL: nil) else {
            Issue.record("a 206 whose range cannot be counted must not be used")
            return
        }
    }

    @Test("206 at the offset resumes; at zero restarts; elsewhere fails for a restart next time")
    func partialContent() {
        let v = Validator.entityTag("\"a\"")
        let at = response(206, [("Content-Range", "bytes 50-99/100"), ("ETag", "\"a\"")])
        #expect(disposition(.decide(response: at, offset: 50, validator: v, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil)) == .resumed(at: 50))
        let zero = response(206, [("Content-Range", "bytes 0-99/100")])
        #expect(disposition(.decide(response: zero, offset: 50, validator: v, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil)) == .restarted(.rangeMismatch))
        let elsewhere = response(206, [("Content-Range", "bytes 25-99/100")])
        guard case .restartNextAttempt(.rangeMismatch, let error) = ResponsePlan.decide(
            response: elsewhere, offset: 50, validator: v, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil) else {
            Issue.record("a range from 25 must not be used for offset 50")
            return
        }
        #expect(error.isRetryable)
        let changed = response(206, [("Content-Range", "bytes 50-99/100"), ("ETag", "\"b\"")])
        guard case .restartNextAttempt(.validatorChanged, _) = ResponsePlan.decide(
            response: changed, offset: 50, validator: v, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil) else {
            Issue.record("a range of a changed file must not be used")
            return
        }
    }

    @Test("200 to a range restarts, as validatorChanged when the validator differs")
    func fullContent() {
        let v = Validator.entityTag("\"a\"")
        let same = response(200, [("ETag", "\"a\"")])
        #expect(disposition(.decide(response: same, offset: 5, validator: v, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil)) == .restarted(.rangeIgnored))
        let other = response(200, [("ETag", "\"b\"")])
        #expect(disposition(.decide(response: other, offset: 5, validator: v, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil)) == .restarted(.validatorChanged))
        #expect(disposition(.decide(response: other, offset: 0, validator: nil, sentRange: false, restartReason: .resumeUnsupported, effectiveURL: nil)) == .resumed(at: 0))
    }

    @Test("416 */N with N equal to the offset is complete; otherwise a restart next time")
    func rangeNotSatisfiable() {
        let full = response(416, [("Content-Range", "bytes */100")])
        #expect(disposition(.decide(response: full, offset: 100, validator: nil, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil)) == .complete)
        guard case .restartNextAttempt = ResponsePlan.decide(
            response: full, offset: 150, validator: nil, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil) else {
            Issue.record("a 416 of another size must restart")
            return
        }
    }

    @Test("416 is complete only when its total, the offset and the known length agree and no validator differs")
    func rangeNotSatisfiableKnown() {
        let v = Validator.entityTag("\"a\"")
        func plan(_ fields: [(String, String)], known: Int64? = 100, sentRange: Bool = true) -> ResumeDisposition? {
            switch ResponsePlan.decide(response: response(416, [("Content-Range", "bytes */100")] + fields), offset: 100,
                                       validator: v, expectedLength: known, sentRange: sentRange,
                                       restartReason: .resumeUnsupported, effectiveURL: nil) {
            case .deliver(let head): head.disposition
            case .restartNextAttempt(let reason, _): .restarted(reason)
            default: nil
            }
        }
        #expect(plan([]) == .complete, "nginx sends no validator with 416: the If-Range vouches")
        #expect(plan([("ETag", "\"a\"")]) == .complete)
        #expect(plan([], known: nil) == .complete)
        #expect(plan([("ETag", "\"b\"")]) == .restarted(.rangeMismatch))
        #expect(plan([], known: 150) == .restarted(.rangeMismatch))
        #expect(plan([], sentRange: false) == .restarted(.rangeMismatch))
    }

    @Test("a body in a transfer coding but chunked is refused before its first byte; a content coding is not")
    func codings() {
        func refused(_ status: Int, _ fields: [(String, String)]) -> DownloadError? {
            if case .refuse(let error) = ResponsePlan.decide(
                response: response(status, fields), offset: 0, validator: nil, sentRange: false,
                restartReason: .resumeUnsupported, effectiveURL: nil) { error } else { nil }
        }
        #expect(refused(200, [("Transfer-Encoding", "gzip, chunked")])?.code == .protocolViolation)
        #expect(refused(200, [("Transfer-Encoding", "gzip, chunked")])?.message.contains("'gzip'") == true)
        #expect(refused(200, [("Transfer-Encoding", "chunked"), ("Content-Encoding", "identity")]) == nil)
        #expect(refused(200, [("Content-Encoding", "gzip")]) == nil)
        #expect(refused(404, [("Transfer-Encoding", "gzip")])?.code == .notFound)
        #expect(refused(503, [("Transfer-Encoding", "gzip")])?.isRetryable == true)
    }

    @Test("a 206 whose Content-Length differs from its range is not used")
    func partialLength() {
        let head = response(206, [("Content-Range", "bytes 50-99/100"), ("Content-Length", "60")])
        guard case .restartNextAttempt(.rangeMismatch, _) = ResponsePlan.decide(
            response: head, offset: 50, validator: nil, sentRange: true, restartReason: .resumeUnsupported, effectiveURL: nil) else {
            Issue.record("60 bytes for a 50-byte range must not be written")
            return
        }
    }

    @Test("the validator kept is a strong ETag, else Last-Modified, else a weak ETag")
    func validatorPreference() {
        #expect(response(200, [("ETag", "\"s\""), ("Last-Modified", "d")]).validator == .entityTag("\"s\""))
        #expect(response(200, [("ETag", "W/\"w\""), ("Last-Modified", "d")]).validator == .lastModified("d"))
        #expect(response(200, [("ETag", "W/\"w\"")]).validator == .entityTag("W/\"w\""))
    }

    @Test("a 401 is a challenge with the first supported scheme and its realm")
    func challenge() {
        let head = response(401, [("WWW-Authenticate", "Negotiate"), ("WWW-Authenticate", "Digest realm=\"r x\", nonce=\"n\"")])
        guard case .challenge(proxy: false) = ResponsePlan.decide(
            response: head, offset: 0, validator: nil, sentRange: false, restartReason: .resumeUnsupported, effectiveURL: nil) else {
            Issue.record("401 must be a challenge")
            return
        }
        #expect(head.challenge(proxy: false)?.scheme == "Digest")
        #expect(head.challenge(proxy: false)?.realm == "r x")
    }
}
