@testable import FileDownloadHTTP
import FileDownload
import Testing

/// The decision table for ranged requests (`TransferRequest.end`), without a server.
@Suite("ResponsePlan for ranged requests")
struct ResponsePlanRangeTests {
    private let v = Validator.entityTag("\"a\"")

    private func response(_ status: Int, _ fields: [(String, String)]) -> ResponseHead {
        .parsing(status, fields)
    }

    private func plan(_ status: Int, _ fields: [(String, String)], offset: Int64, end: Int64,
                      expectedLength: Int64? = 100) -> ResponsePlan {
        ResponsePlan.decide(response: response(status, fields), offset: offset, end: end, validator: v,
                            expectedLength: expectedLength, sentRange: true, restartReason: .resumeUnsupported,
                            effectiveURL: nil)
    }

    private func refusal(_ plan: ResponsePlan) -> DownloadError? {
        if case .refuse(let error) = plan { error } else { nil }
    }

    private func head(_ plan: ResponsePlan) -> TransferHead? {
        if case .deliver(let head) = plan { head } else { nil }
    }

    @Test("206 of exactly the range resumes at the offset, at zero too, and a range cut at the end is accepted")
    func exactRange() {
        let middle = head(plan(206, [("Content-Range", "bytes 20-59/100"), ("ETag", "\"a\"")], offset: 20, end: 60))
        #expect(middle?.disposition == .resumed(at: 20))
        #expect(middle?.expectedLength == 100)
        let first = head(plan(206, [("Content-Range", "bytes 0-29/100"), ("ETag", "\"a\"")], offset: 0, end: 30))
        #expect(first?.disposition == .resumed(at: 0))
        let cut = head(plan(206, [("Content-Range", "bytes 80-99/100"), ("ETag", "\"a\"")], offset: 80, end: 120))
        #expect(cut?.disposition == .resumed(at: 80))
    }

    @Test("206 of another range, of another length or of another file is a retryable protocolViolation")
    func otherRange() {
        for fields in [
            [("Content-Range", "bytes 20-99/100"), ("ETag", "\"a\"")],   // past the end asked for
            [("Content-Range", "bytes 0-59/100"), ("ETag", "\"a\"")],    // from zero
            [("Content-Range", "bytes 20-49/100"), ("ETag", "\"a\"")],   // shorter
            [("Content-Range", "bytes 20-59/100"), ("ETag", "\"b\"")],   // another version
            [("Content-Range", "bytes 20-59/100")],                      // no validator to vouch
            [("Content-Range", "bytes 20-59/200"), ("ETag", "\"a\"")],   // another length
        ] {
            let error = refusal(plan(206, fields, offset: 20, end: 60))
            #expect(error?.code == .protocolViolation, "\(fields)")
            #expect(error?.isRetryable == true, "\(fields)")
        }
    }

    @Test("200 to a range restarts: rangeIgnored, or validatorChanged with another ETag; at offset zero too")
    func ignored() {
        #expect(head(plan(200, [("ETag", "\"a\""), ("Content-Length", "100")], offset: 20, end: 60))?.disposition
                == .restarted(.rangeIgnored))
        #expect(head(plan(200, [("ETag", "\"a\"")], offset: 0, end: 60))?.disposition == .restarted(.rangeIgnored))
        #expect(head(plan(200, [("ETag", "\"b\"")], offset: 20, end: 60))?.disposition == .restarted(.validatorChanged))
    }

    @Test("416 is rangeNotSatisfiable, not retryable, with the length in the message")
    func unsatisfiable() {
        let error = refusal(plan(416, [("Content-Range", "bytes */100")], offset: 100, end: 160))
        #expect(error?.code == .rangeNotSatisfiable)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("100 bytes") == true)
    }
}
