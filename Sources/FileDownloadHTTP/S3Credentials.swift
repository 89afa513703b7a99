import Foundation

/// The AWS credentials one attempt signs with, and where they came from (for messages: the
/// source names a variable, a file and a profile, never a secret).
struct S3Credentials: Sendable, CustomStringConvertible {
    let accessKeyID: String
    let secretAccessKey: String
    /// Sent as `x-amz-security-token` (temporary credentials from STS, SSO or a role).
    let sessionToken: String?
    /// Where they were read: "the environment (AWS_ACCESS_KEY_ID)", "profile dev in /home/me/.aws/credentials".
    let source: String

    var description: String {
        "S3Credentials(access key \(Self.masked(accessKeyID)) from \(source)\(sessionToken == nil ? "" : ", with a session token"))"
    }

    /// An access key as messages show it: its first 4 and last 4 characters (`AKIA…WXYZ`), all of
    /// a short one masked. An access key id is not a secret, but it need not be shown whole.
    static func masked(_ accessKeyID: String) -> String {
        accessKeyID.count > 12 ? "\(accessKeyID.prefix(4))…\(accessKeyID.suffix(4))" : "…"
    }
}
