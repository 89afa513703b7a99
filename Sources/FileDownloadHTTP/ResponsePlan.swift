import FileDownload
import Foundation

/// What to do with the final response of an attempt, decided before its first body byte.
enum ResponsePlan: Sendable {
    /// Report this head to the sink, then deliver the body.
    case deliver(TransferHead)
    /// The body cannot be used: fail the attempt with this retryable error; the next attempt of
    /// the download asks for the whole resource and restarts for `reason`.
    case restartNextAttempt(RestartReason, DownloadError)
    /// The server or proxy wants credentials (401/407): ask the auth door.
    case challenge(proxy: Bool)

    /// Decides the plan for `response` to a request for `offset`.
    ///
    /// - Parameters:
    ///   - sentRange: whether the request carried `Range: bytes=offset-`.
    ///   - restartReason: why the request did not carry a range although `offset` is above zero.
    static func decide(
        response: ResponseHead,
        offset: Int64,
        validator: Validator?,
        sentRange: Bool,
        restartReason: RestartReason,
        effectiveURL: URL?
    ) -> ResponsePlan {
        let status = response.statusCode
        if status == 401 || status == 407 { return .challenge(proxy: status == 407) }
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

        switch status {
        case 206:
            guard let range = response.contentRange, let first = range.first else {
                return .restartNextAttempt(.rangeMismatch, DownloadError(
                    .protocolViolation, "the server answered 206 without a usable Content-Range",
                    isRetryable: true, statusCode: status))
            }
            head.expectedLength = range.total
            if first == 0 {
                head.disposition = offset == 0 ? .resumed(at: 0) : .restarted(sentRange ? .rangeMismatch : restartReason)
            } else if sentRange, first == offset {
                if let changedTo, let validator {
                    return .restartNextAttempt(.validatorChanged, DownloadError(
                        .protocolViolation,
                        "the server sent a range of a changed file (validator \(validator.value) is now \(changedTo.value))",
                        isRetryable: true, statusCode: status))
                }
                head.disposition = .resumed(at: offset)
            } else {
                return .restartNextAttempt(.rangeMismatch, DownloadError(
                    .protocolViolation,
                    "the server sent bytes from \(first) but \(offset) were asked for",
                    isRetryable: true, statusCode: status))
            }
        case 416:
            if let range = response.contentRange, range.first == nil, let total = range.total, total == offset, offset > 0 {
                // The bytes on disk are the whole resource: reported as the satisfied range (206),
                // so that status checks written for 2xx accept it.
                head.disposition = .complete
                head.statusCode = 206
                head.expectedLength = total
            } else if offset > 0 {
                let size = response.contentRange?.total.map { "\($0) bytes" } ?? "an unknown size"
                return .restartNextAttempt(.rangeMismatch, DownloadError(
                    .protocolViolation,
                    "the server refused the range from \(offset): the resource has \(size)",
                    isRetryable: true, statusCode: status))
            } else {
                head.expectedLength = nil
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
}
