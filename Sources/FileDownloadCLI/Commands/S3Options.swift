public import ArgumentParser
import Foundation

/// `--endpoint-url`, `--region` and `--profile` for `s3://` URLs, named and read as the AWS CLI
/// names them (`aws s3 cp --endpoint-url URL --region R --profile NAME`).
public struct S3Options: ParsableArguments {
    @Option(name: .customLong("endpoint-url"), help: ArgumentHelp(
        "s3:// URLs: an S3-compatible endpoint instead of AWS (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's endpoint_url).",
        valueName: "URL"))
    public var endpointURL: String?

    @Option(name: .customLong("region"), help: ArgumentHelp(
        "s3:// URLs: the region to sign for (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's region, us-east-1).",
        valueName: "REGION"))
    public var region: String?

    @Option(name: .customLong("profile"), help: ArgumentHelp(
        "s3:// URLs: the profile of ~/.aws/credentials and ~/.aws/config to sign with, before AWS_ACCESS_KEY_ID (default: AWS_PROFILE, then default).",
        valueName: "NAME"))
    public var profile: String?

    public init() {}

    /// The options, checked.
    ///
    /// - Throws: `ValidationError` (exit 64) when `--endpoint-url` is not an http or https URL with
    ///   a host, or `--region`/`--profile` is empty.
    func settings() throws -> S3Settings {
        var endpoint: URL?
        if let endpointURL {
            guard let url = URL(string: endpointURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host, !host.isEmpty, url.user == nil else {
                throw ValidationError("--endpoint-url '\(endpointURL)' is not an http:// or https:// URL with a host (and no user)")
            }
            endpoint = url
        }
        if region?.isEmpty == true { throw ValidationError("--region needs a region, such as eu-central-1") }
        if profile?.isEmpty == true { throw ValidationError("--profile needs a profile name") }
        return S3Settings(endpoint: endpoint, region: region, profile: profile)
    }
}
