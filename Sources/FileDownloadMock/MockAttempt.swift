public import FileDownload

/// The script of one attempt (one `Transport.transfer(_:into:)` call) of a ``MockTransport``.
///
/// Scripts are queued per URL with ``MockTransport/script(_:attempts:)`` and consumed one per
/// attempt, in order; attempts beyond the script are served normally from the ``MockResource``.
/// Everything not set behaves as the resource says. Combine settings with the initializer or the
/// chaining methods:
///
/// ```swift
/// mock.script(url, attempts: [
///     .drop(at: 100_000),                               // connection lost after 100,000 bytes
///     .status(503, retryAfter: .seconds(2)),            // then a 503
///     .changeContent(to: .seeded(seed: 2, size: 300_000)).ignoringRange(),
///     .normal,
/// ])
/// ```
public struct MockAttempt: Sendable, CustomStringConvertible {
    /// A failure at a byte offset, after the bytes before it were written.
    public var fault: MockFault?
    /// Replaces the resource's content before this attempt is answered; it stays for later
    /// attempts too (the remote file changed).
    public var newContent: MockContent?
    /// Replaces the resource's validator together with ``newContent`` (or alone). `nil` keeps the
    /// configured one, or the content's default validator when none was configured.
    public var newValidator: Validator?
    /// Answer from byte zero although an offset or a range was asked: `RestartReason.rangeIgnored`.
    public var ignoreRange: Bool
    /// The status of this attempt's head instead of the resource's.
    public var statusCode: Int?
    /// The `Retry-After` of this attempt's head.
    public var retryAfter: Duration?
    /// The challenges of this attempt instead of the resource's (`[]`: none).
    public var authentication: [MockAuthentication]?
    /// The connection cannot be made: this error is thrown before any head or byte (a server
    /// that refuses, a host that cannot be reached).
    public var connectionError: DownloadError?
    /// The wait between chunks of this attempt instead of the resource's
    /// ``MockResource/chunkDelay``: one slow connection among fast ones.
    public var chunkDelay: Duration?

    public init(
        fault: MockFault? = nil,
        newContent: MockContent? = nil,
        newValidator: Validator? = nil,
        ignoreRange: Bool = false,
        statusCode: Int? = nil,
        retryAfter: Duration? = nil,
        authentication: [MockAuthentication]? = nil
    ) {
        self.fault = fault
        self.newContent = newContent
        self.newValidator = newValidator
        self.ignoreRange = ignoreRange
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.authentication = authentication
    }

    /// Served as the resource says.
    public static var normal: MockAttempt { MockAttempt() }
    /// This attempt waits `delay` between chunks (a slow connection).
    public static func slow(_ delay: Duration) -> MockAttempt {
        var attempt = MockAttempt()
        attempt.chunkDelay = delay
        return attempt
    }
    /// The connection breaks at `offset`: retryable `DownloadError.Code.connectionLost`.
    public static func drop(at offset: Int64) -> MockAttempt { MockAttempt(fault: .drop(at: offset)) }
    /// Silence from `offset` until the task is cancelled.
    public static func stall(at offset: Int64) -> MockAttempt { MockAttempt(fault: .stall(at: offset)) }
    /// No connection: `error` is thrown before any head (``connectionError``).
    public static func cannotConnect(_ error: DownloadError) -> MockAttempt {
        var attempt = MockAttempt()
        attempt.connectionError = error
        return attempt
    }
    /// `error` is thrown at `offset`.
    public static func error(at offset: Int64, _ error: DownloadError) -> MockAttempt {
        MockAttempt(fault: .error(at: offset, error))
    }
    /// The remote file changes before this attempt (and stays changed).
    public static func changeContent(to content: MockContent, validator: Validator? = nil) -> MockAttempt {
        MockAttempt(newContent: content, newValidator: validator)
    }
    /// The range is ignored: the body starts at zero.
    public static var ignoreRange: MockAttempt { MockAttempt(ignoreRange: true) }
    /// The head carries `code` (and `retryAfter`).
    public static func status(_ code: Int, retryAfter: Duration? = nil) -> MockAttempt {
        MockAttempt(statusCode: code, retryAfter: retryAfter)
    }
    /// These challenges are asked in this attempt.
    public static func authentication(_ challenges: [MockAuthentication]) -> MockAttempt {
        MockAttempt(authentication: challenges)
    }

    /// A copy that also fails with `fault`.
    public func with(fault: MockFault) -> MockAttempt { modified { $0.fault = fault } }
    /// A copy that also ignores the range.
    public func ignoringRange() -> MockAttempt { modified { $0.ignoreRange = true } }
    /// A copy that also reports `code`.
    public func with(status code: Int, retryAfter: Duration? = nil) -> MockAttempt {
        modified { $0.statusCode = code; $0.retryAfter = retryAfter }
    }

    private func modified(_ change: (inout MockAttempt) -> Void) -> MockAttempt {
        var copy = self
        change(&copy)
        return copy
    }

    public var description: String {
        var parts: [String] = []
        if let newContent { parts.append("content -> \(newContent)") }
        if let newValidator { parts.append("validator -> \(newValidator)") }
        if let authentication { parts.append("auth \(authentication)") }
        if ignoreRange { parts.append("ignore range") }
        if let statusCode { parts.append("status \(statusCode)") }
        if let fault { parts.append("\(fault)") }
        if let connectionError { parts.append("cannot connect: \(connectionError)") }
        return parts.isEmpty ? "normal" : parts.joined(separator: ", ")
    }
}
