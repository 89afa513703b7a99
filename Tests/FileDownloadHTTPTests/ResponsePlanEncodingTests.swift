@testable import FileDownloadHTTP
import FileDownload
import Testing

/// Content codings kept as sent (docs/http.md, "Content codings"), and the last-byte check of a
/// complete staging file (docs/http.md, "The last-byte check"), without a server.
@Suite("ResponsePlan: content codings and the last-byte check")
struct ResponsePlanEncodingTests {
    private let tag = "\"49424-661477043fc43\""

    private func outcome(_ plan: ResponsePlan) -> ResumeDisposition? {
        switch plan {
        case .deliver(let head): head.disposition
        case .restartNextAttempt(let reason, _): .restarted(reason)
        default: nil
        }
    }

    private func decide(_ status: Int, _ fields: [(String, String)], offset: Int64, validator: Validator?,
                        known: Int64? = nil, end: Int64? = nil) -> ResponsePlan {
        ResponsePlan.decide(response: .parsing(status, fields), offset: offset, end: end, validator: validator,
                            expectedLength: known, sentRange: offset > 0 || end != nil,
                            restartReason: .resumeUnsupported, effectiveURL: nil)
    }

    @Test("a gzip body is delivered as sent, its coding part of the validator")
    func keptAsSent() throws {
        let plan = decide(200, [("ETag", tag), ("Content-Encoding", "gzip"), ("Content-Length", "300068")],
                          offset: 0, validator: nil)
        guard case .deliver(let head) = plan else {
            Issue.record("a gzip body must be delivered, got \(plan)")
            return
        }
        #expect(head.disposition == .resumed(at: 0))
        #expect(head.validator == Validator.entityTag(tag).encoded("gzip"))
        #expect(head.validator != Validator.entityTag(tag), "the coding is part of what must stay equal")
        #expect(ResponseHead.parsing(200, [("Content-Encoding", "identity, GZIP"), ("Content-Encoding", "br")])
            .contentCoding == "gzip, br")
    }

    @Test("a range in the coding of the bytes on disk resumes; in another coding it restarts, never splices")
    func rangeCodings() {
        let gzip = Validator.entityTag(tag).encoded("gzip")
        let identity = Validator.entityTag(tag)
        let range = [("ETag", tag), ("Content-Range", "bytes 100-199/200"), ("Content-Length", "100")]
        #expect(outcome(decide(206, range + [("Content-Encoding", "gzip")], offset: 100, validator: gzip)) == .resumed(at: 100))
        #expect(outcome(decide(206, range + [("Content-Encoding", "gzip")], offset: 100, validator: identity))
                == .restarted(.validatorChanged))
        #expect(outcome(decide(206, range, offset: 100, validator: gzip)) == .restarted(.validatorChanged))
        // Without a remembered validator the bytes on disk are identity (records from before codings).
        #expect(outcome(decide(206, range + [("Content-Encoding", "gzip")], offset: 100, validator: nil))
                == .restarted(.validatorChanged))
        // A 200 in another coding is the whole resource again: a restart because of the change.
        #expect(outcome(decide(200, [("ETag", tag)], offset: 100, validator: gzip)) == .restarted(.validatorChanged))
        #expect(outcome(decide(200, [("ETag", tag), ("Content-Encoding", "gzip")], offset: 100, validator: gzip))
                == .restarted(.rangeIgnored))
        // A ranged request (a segment) in another coding is never written.
        guard case .refuse(let error) = decide(206, range, offset: 100, validator: gzip, end: 200) else {
            Issue.record("a segment in another coding must be refused")
            return
        }
        #expect(error.isRetryable && error.message.contains("identity"))
        #expect(outcome(decide(206, range + [("Content-Encoding", "gzip")], offset: 100, validator: gzip, end: 200))
                == .resumed(at: 100))
    }

    @Test("at the known length the last byte is asked for; its 206 under the validator is complete")
    func lastByte() {
        #expect(ResponsePlan.probesLastByte(offset: 200, end: nil, expectedLength: 200, sentRange: true))
        #expect(!ResponsePlan.probesLastByte(offset: 150, end: nil, expectedLength: 200, sentRange: true))
        #expect(!ResponsePlan.probesLastByte(offset: 200, end: nil, expectedLength: nil, sentRange: true))
        #expect(!ResponsePlan.probesLastByte(offset: 200, end: 300, expectedLength: 200, sentRange: true))
        #expect(!ResponsePlan.probesLastByte(offset: 200, end: nil, expectedLength: 200, sentRange: false))
        let v = Validator.entityTag(tag)
        let last = [("ETag", tag), ("Content-Range", "bytes 199-199/200"), ("Content-Length", "1")]
        guard case .deliver(let head) = decide(206, last, offset: 200, validator: v, known: 200) else {
            Issue.record("the last byte under the validator must be complete")
            return
        }
        #expect(head.disposition == .complete && head.expectedLength == 200 && head.statusCode == 206)
        // In the coding of the bytes on disk too.
        #expect(outcome(decide(206, last + [("Content-Encoding", "gzip")], offset: 200, validator: v.encoded("gzip"), known: 200))
                == .complete)
        #expect(outcome(decide(206, last + [("Content-Encoding", "gzip")], offset: 200, validator: v, known: 200))
                == .restarted(.validatorChanged))
        // Another length, another validator, none at all: another file.
        #expect(outcome(decide(206, [("ETag", tag), ("Content-Range", "bytes 199-199/300")], offset: 200, validator: v, known: 200))
                == .restarted(.validatorChanged))
        #expect(outcome(decide(206, [("ETag", "\"x\""), ("Content-Range", "bytes 199-199/200")], offset: 200, validator: v, known: 200))
                == .restarted(.validatorChanged))
        #expect(outcome(decide(206, [("Content-Range", "bytes 199-199/200")], offset: 200, validator: v, known: 200))
                == .restarted(.validatorChanged))
        // More than the byte asked for, or a total the server does not tell: not taken as complete.
        #expect(outcome(decide(206, [("ETag", tag), ("Content-Range", "bytes 199-199/*")], offset: 200, validator: v, known: 200))
                == .restarted(.rangeMismatch))
        // A 200 to the If-Range: the file changed, its body is the new file.
        #expect(outcome(decide(200, [("ETag", "\"x\"")], offset: 200, validator: v, known: 200)) == .restarted(.validatorChanged))
        // Apache and lighttpd answer a range past the end with a 416 without Content-Range: never complete.
        #expect(outcome(decide(416, [], offset: 200, validator: v, known: 200)) == .restarted(.rangeMismatch))
    }
}
