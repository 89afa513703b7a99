import FileDownload
import Foundation

/// What to do with the final response of an attempt, decided before its first body byte.
enum ResponsePlan: Sendable {
    /// Report this head to the sink, then deliver the body.
    case deliver(TransferHead)
    /// The body cannot be used: fail the attempt with this retryable error; the next attempt of
    /// the download asks for the whole resource and restarts for `reason`.
    case restartNextAttempt(RestartReason, DownloadError)
    /// The body cannot be used and asking again would not help: fail the attempt with this error.
    /// The sink is never begun, so the bytes on disk stay as they were.
    case refuse(DownloadError)
    /// The server or proxy wants credentials (401/407): ask the auth door.
    case challenge(proxy: Bool)

    /// Decides the plan for `response` to a request for `offset`.
    ///
    /// In order: a 401/407 is a challenge; a body in a content or transfer coding other than
    /// identity (and chunked) is refused; then the status decides (docs/http.md, "Validators and
    /// resume"). A range is used, or a 416 taken as complete, only when what the server says of
    /// the resource matches what the bytes on disk belong to: the remembered `validator` and the
    /// `expectedLength` known from earlier attempts.
    ///
    /// - Parameters:
    ///   - validator: the validator remembered from earlier attempts (sent in `If-Range` when
    ///     strong and `sentRange`).
    ///   - expectedLength: the total length known from earlier attempts, if any.
    ///   - sentRange: whether the request carried `Range: bytes=offset-`.
    ///   - restartReason: why the request did not carry a range although `offset` is above zero.
    ///   - end: the end (exclusive) of a ranged request (`TransferRequest.end`), decided by
    ///     ``decideRange(response:head:offset:end:validator:changedTo:expectedLength:sentRange:restartReason:)``.
    static func decide(
        response: ResponseHead,
        offset: Int64,
        end: Int64? = nil,
        validator: Validator?,
        expectedLength: Int64? = nil,
        sentRange: Bool,
        restartReason: RestartReason,
        effectiveURL: URL?
    ) -> ResponsePlan {
        let status = response.statusCode
        if status == 401 || status == 407 { return .challenge(proxy: status == 407) }
        if let coding = response.bodyCoding, status != 416 {
            // A 4xx/5xx keeps the error its status gives (404 stays notFound, 503 retryable).
            let error = DownloadError.forStatus(status, retryAfter: response.retryAfter) ?? DownloadError(
                .protocolViolation,
                "the server sent the body encoded as '\(coding)' although only identity was accepted; none of its bytes were kept",
                isRetryable: false, statusCode: status)
            return .refuse(error)
        }
        var head = TransferHead(
            disposition: .resumed(at: 0),
            statusCode: status,
            expectedLength: response.contentLength,
            validator: response.validator,
            effectiveURL: effectiveURL,
            suggestedFilename: response.suggestedFilename,
            retryAfter: response.retryAfter
        )
        // The response's validator of the remembered kind, when it differs from the remembered one.
        let changedTo: Validator? = validator.flatMap { old in
            response.validator(ofKind: old.kind).flatMap { $0.value != old.value ? $0 : nil }
        }

        if let end {
            return decideRange(response: response, head: head, offset: offset, end: end, validator: validator,
                               changedTo: changedTo, expectedLength: expectedLength, sentRange: sentRange,
                               restartReason: restartReason)
        }
        switch status {
        case 206:
            guard let range = response.contentRange, let first = range.first, let last = range.last, let count = range.count else {
                return .restartNextAttempt(.rangeMismatch, DownloadError(
                    .protocolViolation, "the server answered 206 without a usable Content-Range",
                    isRetryable: true, statusCode: status))
            }
            if let length = response.contentLength, length != count {
                return .restartNextAttempt(.rangeMismatch, DownloadError(
                    .protocolViolation,
                    "the server sent \(length) bytes for the range \(first)-\(last)",
                    isRetryable: true, statusCode: status))
            }
            head.expectedLength = range.total
            if first == 0 {
                head.disposition = offset == 0 ? .resumed(at: 0) : .restarted(sentRange ? .rangeMismatch : restartReason)
            } else if sentRange, first == offset {
                if let mismatch = mismatch(of: response, total: range.total, validator: validator,
                                           changedTo: changedTo, expectedLength: expectedLength, missingCounts: true) {
                    return .restartNextAttempt(.validatorChanged, DownloadError(
                        .protocolViolation, "the server sent a range of another file (\(mismatch))",
                        isRetryable: true, statusCode: status))
                }
                head.expectedLength = range.total ?? expectedLength
                head.disposition = .resumed(at: offset)
            } else {
                return .restartNextAttempt(.rangeMismatch, DownloadError(
                    .protocolViolation,
                    "the server sent bytes from \(first) but \(offset) were asked for",
                    isRetryable: true, statusCode: status))
            }
        case 416:
            guard offset > 0 else {
                head.expectedLength = nil
                break
            }
            let total = response.contentRange.flatMap { $0.first == nil ? $0.total : nil }
            // nginx (the reference) sends neither ETag nor Last-Modified with a 416: an absent
            // validator is vouched for by the If-Range the request carried (a server evaluates
            // If-Range before Range, and answers 200 to a changed file).
            let vouched = sentRange && validator?.isStrong == true
            if sentRange, let total, total == offset,
               mismatch(of: response, total: total, validator: validator, changedTo: changedTo,
                        expectedLength: expectedLength, missingCounts: !vouched) == nil {
                // The bytes on disk are the whole resource: reported as the satisfied range (206),
                // so that status checks written for 2xx accept it.
                head.disposition = .complete
                head.statusCode = 206
                head.expectedLength = total
                head.validator = response.validator ?? validator
            } else {
                let size = total.map { "\($0) bytes" } ?? "an unknown size"
                let known = expectedLength.map { ", \($0) were known" } ?? ""
                return .restartNextAttempt(.rangeMismatch, DownloadError(
                    .protocolViolation,
                    "the server refused the range from \(offset): the resource has \(size)\(known)",
                    isRetryable: true, statusCode: status))
            }
        default:
            if offset > 0 {
                if !sentRange {
                    head.disposition = .restarted(restartReason)
                } else {
                    head.disposition = .restarted(changedTo != nil ? .validatorChanged : .rangeIgnored)
                }
            }
        }
        return .deliver(head)
    }

    /// Why the resource the server describes is not the one the bytes on disk belong to, or
    /// `nil` when nothing contradicts it: a total other than the known one, a validator of the
    /// remembered kind that differs, or (when `missingCounts`) none of that kind at all.
    static func mismatch(
        of response: ResponseHead, total: Int64?, validator: Validator?, changedTo: Validator?,
        expectedLength: Int64?, missingCounts: Bool
    ) -> String? {
        if let validator, let changedTo {
            return "validator \(validator.value) is now \(changedTo.value)"
        }
        if let validator, missingCounts, response.validator(ofKind: validator.kind) == nil {
            return "the answer has no \(validator.kind.rawValue), \(validator.value) was known"
        }
        if let total, let expectedLength, total != expectedLength {
            return "its length is \(total) bytes, \(expectedLength) were known"
        }
        return nil
    }
}
