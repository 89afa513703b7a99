public import Foundation

/// What a transport learned before the first body byte of an attempt.
public struct TransferHead: Sendable, Hashable {
    /// What happened to the requested offset.
    public var disposition: ResumeDisposition
    /// The protocol status (an HTTP status code); `nil` for protocols without one (SFTP).
    public var statusCode: Int?
    /// The total length of the remote resource in bytes, when known (not the length of this
    /// attempt's body).
    public var expectedLength: Int64?
    /// The current validator of the remote resource, if the protocol has one.
    public var validator: Validator?
    /// The URL the bytes come from after redirects, when it differs from the request's.
    public var effectiveURL: URL?
    /// The server-suggested file name (HTTP `Content-Disposition`), unsanitised.
    public var suggestedFilename: String?
    /// How long the server asked to wait before another attempt (HTTP `Retry-After`).
    public var retryAfter: Duration?

    public init(
        disposition: ResumeDisposition,
        statusCode: Int? = nil,
        expectedLength: Int64? = nil,
        validator: Validator? = nil,
        effectiveURL: URL? = nil,
        suggestedFilename: String? = nil,
        retryAfter: Duration? = nil
    ) {
        self.disposition = disposition
        self.statusCode = statusCode
        self.expectedLength = expectedLength
        self.validator = validator
        self.effectiveURL = effectiveURL
        self.suggestedFilename = suggestedFilename
        self.retryAfter = retryAfter
    }
}
