internal import CCurl

/// How one HTTP request is signed with AWS Signature Version 4 by libcurl (`CURLOPT_AWS_SIGV4`,
/// libcurl 7.75 and later): the access key as the user, the secret as the password. libcurl signs
/// every field the request sends (the range, `If-Range`, `x-amz-content-sha256`,
/// `x-amz-security-token`) with `host` and `x-amz-date`.
///
/// Its description names the scope and the access key only, never the secret.
struct AWSSigning: Sendable, CustomStringConvertible {
    /// The region the signature is scoped to (`us-east-1`).
    let region: String
    /// The service the signature is scoped to (`s3`).
    let service: String
    let accessKeyID: String
    let secretAccessKey: String

    /// Sets the signing options on `transfer`'s easy handle.
    func apply(to transfer: CurlTransfer) throws {
        try transfer.set(CURLOPT_AWS_SIGV4, "aws:amz:\(region):\(service)")
        try transfer.set(CURLOPT_USERNAME, accessKeyID)
        try transfer.set(CURLOPT_PASSWORD, secretAccessKey)
        // An S3 key may hold `.` and `..` segments and `//`: the path is sent (and signed) as it is.
        transfer.set(CURLOPT_PATH_AS_IS, 1)
    }

    var description: String {
        "AWSSigning(\(region)/\(service), access key \(S3Credentials.masked(accessKeyID)))"
    }
}
