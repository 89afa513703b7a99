public import Foundation

/// Where `s3://` URLs are read and with which profile (`--endpoint-url`, `--region`,
/// `--profile`); `nil` leaves each to the environment and the AWS CLI's shared files, read at
/// each attempt (`S3Transport`). Never holds a credential.
public struct S3Settings: Sendable, Hashable {
    /// An S3-compatible endpoint instead of AWS.
    public var endpoint: URL?
    /// The region requests are signed for.
    public var region: String?
    /// The profile of `~/.aws/credentials` and `~/.aws/config` to use, before the environment's keys.
    public var profile: String?

    public init(endpoint: URL? = nil, region: String? = nil, profile: String? = nil) {
        self.endpoint = endpoint
        self.region = region
        self.profile = profile
    }
}
