import FileDownload

extension ResponsePlan {
    /// Decides the plan for the response to a ranged request (`Range: bytes=OFFSET-(END-1)`), by
    /// the "Ranges" rules of the `Transport` contract.
    ///
    /// - 206 whose `Content-Range` is exactly `OFFSET-(min(END, total)-1)` of the resource the
    ///   validator (value and content coding) and the known length name → `resumed(at: OFFSET)`,
    ///   at offset 0 too. Another range, or a range of another resource or in another coding →
    ///   a retryable `protocolViolation`; nothing is
    ///   written and the next attempt asks again (a ranged request never leaves a restart behind).
    /// - 416 → `DownloadError.Code.rangeNotSatisfiable`, not retryable, before any head. (A changed
    ///   file answers an `If-Range` with 200, which the next rule takes.)
    /// - Any other status → reported as it is, restarted: `validatorChanged` when the response
    ///   carries another validator of the remembered kind or another content coding, else
    ///   `rangeIgnored` (or
    ///   `restartReason` when no range was sent). A 2xx body is then the whole resource; a 4xx or
    ///   5xx is refused by the status check before it touches the file.
    static func decideRange(
        response: ResponseHead, head: TransferHead, offset: Int64, end: Int64, validator: Validator?,
        changedTo: Validator?, recoded: String?, expectedLength: Int64?, sentRange: Bool, restartReason: RestartReason
    ) -> ResponsePlan {
        var head = head
        let status = response.statusCode
        switch status {
        case 206:
            guard let range = response.contentRange, let first = range.first, let last = range.last,
                  let count = range.count else {
                return .refuse(DownloadError(.protocolViolation, "the server answered 206 without a usable Content-Range",
                                             isRetryable: true, statusCode: status))
            }
            if let recoded {
                return .refuse(DownloadError(.protocolViolation, "the server sent the range \(recoded)",
                                             isRetryable: true, statusCode: status))
            }
            let wantedEnd = range.total.map { min(end, $0) } ?? end
            if first != offset || last + 1 != wantedEnd || response.contentLength.map({ $0 != count }) == true {
                return .refuse(DownloadError(
                    .protocolViolation,
                    "the server sent the bytes \(first)-\(last) (\(response.contentLength.map(String.init) ?? "?") in the body) but \(offset)-\(wantedEnd - 1) were asked for",
                    isRetryable: true, statusCode: status))
            }
            if let mismatch = mismatch(of: response, total: range.total, validator: validator,
                                       changedTo: changedTo, expectedLength: expectedLength, missingCounts: true) {
                return .refuse(DownloadError(.protocolViolation, "the server sent a range of another file (\(mismatch))",
                                             isRetryable: true, statusCode: status))
            }
            head.expectedLength = range.total ?? expectedLength
            head.disposition = .resumed(at: offset)
        case 416:
            let total = response.contentRange.flatMap { $0.first == nil ? $0.total : nil }
            return .refuse(DownloadError(
                .rangeNotSatisfiable,
                "the range from byte \(offset) starts past the end of the resource (\(total.map { "\($0) bytes" } ?? "its size was not told"))",
                isRetryable: false, statusCode: status))
        default:
            head.disposition = .restarted(changedTo != nil || recoded != nil ? .validatorChanged
                                          : sentRange ? .rangeIgnored : restartReason)
        }
        return .deliver(head)
    }
}
