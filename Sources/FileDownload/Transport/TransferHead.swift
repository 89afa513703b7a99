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
    /// The SHA-256 of the whole resource as the server announced it (lowercase hex), when it
    /// did: HTTP `Repr-Digest: sha-256=:…:` (RFC 9530) in any answer, or `Content-Digest` (RFC
    /// 9530) or `Digest: SHA-256=…` (RFC 3230) in a 200 without `Content-Encoding`, where the
    /// content is the whole file. The downloader checks the finished file against it
    /// (``CompletionChecks/serverDigest``); a file that differs fails validation.
    public var announcedSHA256: String?
    /// When the remote file was last modified, as the server reported it (HTTP `Last-Modified`),
    /// when it did and the ``validator`` does not carry it already (an FTP `MDTM` or SFTP mtime
    /// validator does). What ``DownloadOptions/keepsRemoteTime`` sets on the finished file.
    public var modificationDate: Date?

    public init(
        disposition: ResumeDisposition,
        statusCode: Int? = nil,
        expectedLength: Int64? = nil,
        validator: Validator? = nil,
        effectiveURL: URL? = nil,
        suggestedFilename: String? = nil,
        retryAfter: Duration? = nil,
        announcedSHA256: String? = nil,
        modificationDate: Date? = nil
    ) {
        self.disposition = disposition
        self.statusCode = statusCode
        self.expectedLength = expectedLength
        self.validator = validator
        self.effectiveURL = effectiveURL
        self.suggestedFilename = suggestedFilename
        self.retryAfter = retryAfter
        self.announcedSHA256 = announcedSHA256
        self.modificationDate = modificationDate
    }
}
