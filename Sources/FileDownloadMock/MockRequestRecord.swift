public import FileDownload
public import Foundation

/// What a ``MockTransport`` was asked in one attempt and what it did: for assertions.
///
/// Credentials are never kept: only their descriptions (kind and user), which hide every secret.
/// Sensitive header fields are kept (a test may need to check them) but print redacted.
public struct MockRequestRecord: Sendable, CustomStringConvertible {
    /// How an attempt ended.
    public enum Outcome: Sendable, Hashable {
        /// Still running.
        case running
        /// The whole resource was delivered (or was already complete).
        case completed
        /// It threw a `DownloadError` with this code.
        case failed(DownloadError.Code)
        /// It was cancelled.
        case cancelled
    }

    /// The URL asked for.
    public var url: URL
    /// `TransferRequest.downloadID`.
    public var downloadID: String
    /// The mock's count of attempts at this URL, from 1.
    public var attempt: Int
    /// `TransferRequest.attempt` as the caller numbered it.
    public var requestAttempt: Int
    /// `TransferRequest.offset`.
    public var offset: Int64
    /// `TransferRequest.end`: where the range asked for ends, `nil` for the rest of the resource.
    public var end: Int64?
    /// `TransferRequest.validator` as sent.
    public var validator: Validator?
    /// `TransferOptions.headers` as sent.
    public var headers: [HeaderField]
    /// The challenges asked, in order; a challenge asked again after a wrong answer appears again.
    public var challenges: [AuthChallenge.Kind]
    /// Descriptions of the credentials received, in order (`Credential.description`; no secret).
    public var credentials: [String]
    /// The head given to the writer, if one was.
    public var head: TransferHead?
    /// The scripted attempt used, if any.
    public var script: MockAttempt?
    /// Body bytes written to the writer in this attempt (brought up to date before each wait on the
    /// clock and when the body ends).
    public var bytesDelivered: Int64
    /// How it ended.
    public var outcome: Outcome

    public var description: String {
        var text = "#\(attempt) \(url.redactingPassword) offset \(offset)"
        if let end { text += " end \(end)" }
        if let validator { text += " validator \(validator)" }
        if let head { text += " -> \(head.disposition) status \(head.statusCode.map(String.init) ?? "-")" }
        text += ", \(bytesDelivered) bytes, \(outcome)"
        if !credentials.isEmpty { text += ", credentials [\(credentials.joined(separator: "; "))]" }
        if !headers.isEmpty { text += ", headers \(headers)" }
        return text
    }
}
