public import FileDownload

/// What a ``MockTransport`` serves at one URL when no scripted attempt says otherwise.
///
/// ```swift
/// mock.serve(url, MockResource(.seeded(seed: 7, size: 1 << 20), chunkSize: 16 * 1024,
///                              chunkDelay: .milliseconds(10)))
/// ```
public struct MockResource: Sendable, CustomStringConvertible {
    /// The bytes served.
    public var content: MockContent
    /// Bytes per `TransferWriter.write(_:)` call. Default 64 KiB; at least 1.
    public var chunkSize: Int
    /// Waited on the transport's clock before each chunk after the first of an attempt; `nil`
    /// for none. With a ``ManualClock`` the transfer then moves only as the test advances time.
    public var chunkDelay: Duration?
    /// The validator reported in the head; `nil` means ``MockContent/defaultValidator``.
    public var validator: Validator?
    /// The status reported in the head of a full response. Default 200. A resumed response
    /// reports 206. A status outside 2xx is still given to `TransferWriter.begin(_:)`; when the
    /// writer accepts it, the body is delivered as for 200.
    public var statusCode: Int
    /// Whether range requests are honoured. When `false` every attempt at an offset above zero,
    /// and every ranged attempt (`TransferRequest.end`) at any offset, restarts with
    /// `RestartReason.rangeIgnored` and delivers the whole resource: a server that ignores
    /// `Range`.
    public var supportsRanges: Bool
    /// Reported as `TransferHead.retryAfter`.
    public var retryAfter: Duration?
    /// Reported as `TransferHead.suggestedFilename`.
    public var suggestedFilename: String?
    /// Challenges asked, in order, before every attempt (empty: none).
    public var authentication: [MockAuthentication]
    /// The total length the head announces (`TransferHead.expectedLength`) instead of the
    /// content's size: a server that lies about its length. `nil` (default): the content's size.
    public var announcedLength: Int64?

    public init(
        _ content: MockContent,
        chunkSize: Int = 64 * 1024,
        chunkDelay: Duration? = nil,
        validator: Validator? = nil,
        statusCode: Int = 200,
        supportsRanges: Bool = true,
        retryAfter: Duration? = nil,
        suggestedFilename: String? = nil,
        authentication: [MockAuthentication] = [],
        announcedLength: Int64? = nil
    ) {
        self.content = content
        self.chunkSize = max(1, chunkSize)
        self.chunkDelay = chunkDelay
        self.validator = validator
        self.statusCode = statusCode
        self.supportsRanges = supportsRanges
        self.retryAfter = retryAfter
        self.suggestedFilename = suggestedFilename
        self.authentication = authentication
        self.announcedLength = announcedLength
    }

    /// The validator the head reports: ``validator`` or the content's default.
    public var currentValidator: Validator { validator ?? content.defaultValidator }

    public var description: String {
        var parts = ["\(content)", "chunk \(chunkSize)", "status \(statusCode)", "validator \(currentValidator)"]
        if let chunkDelay { parts.append("delay \(chunkDelay)") }
        if !supportsRanges { parts.append("no ranges") }
        if !authentication.isEmpty { parts.append("auth \(authentication)") }
        if let announcedLength { parts.append("announces \(announcedLength)") }
        return parts.joined(separator: ", ")
    }
}
