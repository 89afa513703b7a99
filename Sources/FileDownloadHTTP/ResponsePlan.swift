import FileDownload
import Foundation

/// What to do with the final response of an attempt, decided before its first body byte.
enum ResponsePlan: Sendable {
    /// Report this head to the writer, then deliver the body.
    case deliver(TransferHead)
    /// The body cannot be used: fail the attempt with this retryable error; the next attempt of
    /// the download asks for the whole resource and restarts for `reason`.
    case restartNextAttempt(RestartReason, DownloadError)
    /// The body cannot be used and asking again would not help: fail the attempt with this error.
    /// The writer is never begun, so the bytes on disk stay as they were.
    case refuse(DownloadError)
    /// The server or proxy wants credentials (401/407): ask the auth door.
    case challenge(proxy: Bool)

    /// Decides the plan for `response` to a request for `offset`.
    ///
    /// In order: a 401/407 is a challenge; a body in a transfer coding other than chunked is
    /// refused; then the status decides (docs/http.md, "Validators and resume"). A body in a
    /// content coding is kept as sent, its coding part of the head's validator. A range is used,
    /// or the bytes on disk taken as complete, only when what the server says of the resource
    /// matches what the bytes on disk belong to: the remembered `validator` (its value and its
    /// ``Validator/contentEncoding``) and the `expectedLength` known from earlier attempts.
    ///
    /// When `offset` is the known length (``probesLastByte(offset:end:expectedLength:sentRange:)``)
    /// the request asked for the last byte on disk (`Range: bytes=OFFSET-1-`): a 206 of exactly
    /// that byte of a resource of that length, under the same validator and coding, is
    /// ``ResumeDisposition/complete`` (its byte is not written).
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
        if let coding = response.transferCoding, status != 416 {
            // A 4xx/5xx keeps the error its status gives (404 stays notFound, 503 retryable).
            let error = DownloadError.forStatus(status, retryAfter: response.retryAfter) ?? DownloadError(
                .protocolViolation,
                "the server sent the body in the transfer coding '\(coding)', which only applies to one message; none of its bytes were kept",
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
            retryAfter: response.retryAfter,
            announcedSHA256: response.announcedSHA256,
            modificationDate: response.value("last-modified").flatMap(RemoteTime.date(httpDate:))
        )
        // The response's validator of the remembered kind, when it differs from the remembered one.
        let changedTo: Validator? = validator.flatMap { old in
            response.validator(ofKind: old.kind).flatMap { $0.value != old.value ? $0 : nil }
        }
        // The body's coding against the coding of the bytes on disk (identity without a
        // remembered validator: records from before codings were kept hold identity bytes).
        let recoded = recoding(of: response, offset: offset, validator: validator)

        if let end {
            return decideRange(response: response, head: head, offset: offset, end: end, validator: validator,
                               changedTo: changedTo, recoded: recoded, expectedLength: expectedLength,
                               sentRange: sentRange, restartReason: restartReason)
        }
        switch status {
        case 206:
            guard let range = response.contentRange, let first = range.first, let last = range.last, let count = range.count else {
                return .restartNextAttempt(.rangeMismatch, DownloadError(
                    .protocolViolation, "the server answered 206 without a usable Content-Range",
                    isRetryable: true, statusCode: status))
            }
            let probe = probesLastByte(offset: offset, end: end, expectedLength: expectedLength, sentRange: sentRange)
                && first == offset - 1
            if offset > 0, first > 0 || probe, let recoded {
                // Bytes of one coding are never continued with bytes of another.
                return .restartNextAttempt(.validatorChanged, DownloadError(
                    .protocolViolation, "the server sent the range \(recoded)",
                    isRetryable: true, statusCode: status))
            }
            if probe {
                return lastByte(response: response, head: head, range: range, offset: offset,
                                validator: validator, changedTo: changedTo, expectedLength: expectedLength)
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
                    head.disposition = .restarted(changedTo != nil || recoded != nil ? .validatorChanged : .rangeIgnored)
                }
            }
        }
        return .deliver(head)
    }

    /// Whether an open-ended request at `offset` asks for the last byte on disk
    /// (`Range: bytes=OFFSET-1-`) instead of the range from `offset`: when `offset` is the known
    /// length of the resource. A server answers a range past the end with a 416 that need not say
    /// the length (Apache and lighttpd send no `Content-Range`); the last byte is a range it can
    /// satisfy, and its 206 tells the length under the validator the request's `If-Range` named.
    static func probesLastByte(offset: Int64, end: Int64?, expectedLength: Int64?, sentRange: Bool) -> Bool {
        sentRange && end == nil && offset > 0 && expectedLength == offset
    }

    /// The plan for the 206 answering a last-byte request (`range` starts at `offset - 1`): the
    /// bytes on disk are complete when it is that one byte of a resource of `offset` bytes under
    /// the remembered validator; a range of another resource restarts (`validatorChanged`), any
    /// other range too (`rangeMismatch`).
    static func lastByte(
        response: ResponseHead, head: TransferHead, range: ContentRange, offset: Int64,
        validator: Validator?, changedTo: Validator?, expectedLength: Int64?
    ) -> ResponsePlan {
        var head = head
        if let mismatch = mismatch(of: response, total: range.total, validator: validator, changedTo: changedTo,
                                   expectedLength: expectedLength, missingCounts: true) {
            return .restartNextAttempt(.validatorChanged, DownloadError(
                .protocolViolation, "the server sent a range of another file (\(mismatch))",
                isRetryable: true, statusCode: response.statusCode))
        }
        guard range.last == offset - 1, range.total == offset, response.contentLength.map({ $0 == 1 }) ?? true else {
            return .restartNextAttempt(.rangeMismatch, DownloadError(
                .protocolViolation,
                "the server answered the request for byte \(offset - 1) with the bytes \(range.first.map(String.init) ?? "?")-\(range.last.map(String.init) ?? "?") of \(range.total.map { "\($0) bytes" } ?? "an unknown size")",
                isRetryable: true, statusCode: response.statusCode))
        }
        // The bytes on disk are the whole resource: reported as the satisfied range (206).
        head.disposition = .complete
        head.expectedLength = offset
        head.validator = response.validator ?? validator
        return .deliver(head)
    }

    /// How the body's content coding differs from the coding of the bytes on disk, or `nil` when
    /// they are the same. The bytes on disk are those of `validator` (identity without one); at
    /// offset 0 without a validator nothing is on disk to differ from.
    static func recoding(of response: ResponseHead, offset: Int64, validator: Validator?) -> String? {
        guard validator != nil || offset > 0 else { return nil }
        let disk = validator?.contentEncoding, body = response.contentCoding
        guard disk != body else { return nil }
        return "in the content coding \(body.map { "'\($0)'" } ?? "identity"), but the bytes on disk are in \(disk.map { "'\($0)'" } ?? "identity")"
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
