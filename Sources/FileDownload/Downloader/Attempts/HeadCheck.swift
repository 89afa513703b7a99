/// The checks of a transfer's head, run by the sink before the first body byte: the status
/// (the delegate's answer, else 2xx) and the announced size. The attempts run them
/// (``Attempt``, ``SegmentRun``), and so do the conformance suite, `fdl`'s standard output and
/// ``RemoteFileCheck`` (through ``Downloader/checkHead(_:id:expectedSize:delegate:)``).
enum HeadCheck {
    /// Status, then size.
    static func check(_ head: TransferHead, id: String, expectedSize: Int64?, delegate: (any DownloaderDelegate)?) throws {
        try checkStatus(head, id: id, delegate: delegate)
        try checkSize(head, expectedSize: expectedSize)
    }

    /// The length the head announces must be `expectedSize`, when both are known.
    static func checkSize(_ head: TransferHead, expectedSize: Int64?) throws {
        if let want = expectedSize, let total = head.expectedLength, want != total {
            throw DownloadError(.validationFailed, "the server announced \(total) bytes but \(want) were expected")
        }
    }

    /// A head that is not ``ResumeDisposition/complete`` must carry a status the delegate (or,
    /// without one, 2xx) accepts; otherwise the status's error (429 and 503 transient, with
    /// their `Retry-After`).
    static func checkStatus(_ head: TransferHead, id: String, delegate: (any DownloaderDelegate)?) throws {
        guard head.disposition != .complete else { return }
        let status = head.statusCode
        guard !(delegate?.isValidStatus(status, id: id) ?? acceptsByDefault(status)) else { return }
        let code = status ?? 0
        throw DownloadError.forStatus(code, retryAfter: head.retryAfter)
            ?? DownloadError(.badStatus, "the status \(code) was not accepted", statusCode: code)
    }

    /// The status check without a delegate (and ``DownloaderDelegate``'s default): 2xx, or no
    /// status at all (protocols without one).
    static func acceptsByDefault(_ status: Int?) -> Bool {
        status.map { (200..<300).contains($0) } ?? true
    }
}
