import FileDownload
import Foundation

/// What one attempt of ``S3Transport`` uses, read from its configuration, the environment and
/// the AWS CLI's shared files in the order the AWS CLI reads them (see ``S3Transport``).
struct S3Resolution: Sendable {
    let credentials: S3Credentials
    let region: String
    /// `nil` for AWS itself.
    let endpoint: URL?

    /// Reads the settings of one attempt.
    ///
    /// - Throws: `DownloadError.Code.authenticationFailed` (not retryable) when no credentials
    ///   are found, or a profile named by ``S3Transport/Configuration/profile`` or `AWS_PROFILE`
    ///   is in neither file; `DownloadError.Code.invalidURL` when an endpoint is not an http or
    ///   https URL with a host, or the region is not 1 to 64 lower-case letters, digits and
    ///   hyphens (it becomes a host name and a signing scope).
    static func resolve(_ configuration: S3Transport.Configuration) throws -> S3Resolution {
        let environment = configuration.environment.filter { !$0.value.isEmpty }
        let home = environment["HOME"] ?? NSHomeDirectory()
        func expand(_ path: String) -> String {
            path == "~" ? home : path.hasPrefix("~/") ? home + path.dropFirst() : path
        }
        let credentialsPath = expand(environment["AWS_SHARED_CREDENTIALS_FILE"] ?? "~/.aws/credentials")
        let configPath = expand(environment["AWS_CONFIG_FILE"] ?? "~/.aws/config")
        let credentialsFile = try S3SharedFile(path: credentialsPath)
        let configFile = try S3SharedFile(path: configPath)
        let namedProfile = configuration.profile ?? environment["AWS_PROFILE"]
        let profileName = namedProfile ?? "default"
        let fromCredentials = credentialsFile?.profile(profileName, isConfig: false)
        let fromConfig = configFile?.profile(profileName, isConfig: true)
        if let namedProfile, fromCredentials == nil, fromConfig == nil {
            throw DownloadError(.authenticationFailed,
                                "the AWS profile \(namedProfile) is in neither \(credentialsPath) nor \(configPath)",
                                isRetryable: false)
        }

        var credentials: S3Credentials?
        if configuration.profile == nil, let key = environment["AWS_ACCESS_KEY_ID"],
           let secret = environment["AWS_SECRET_ACCESS_KEY"] {
            credentials = S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"],
                                        source: "the environment (AWS_ACCESS_KEY_ID)")
        }
        for (settings, path) in [(fromCredentials, credentialsPath), (fromConfig, configPath)] where credentials == nil {
            if let settings, let key = settings["aws_access_key_id"], let secret = settings["aws_secret_access_key"] {
                credentials = S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: settings["aws_session_token"],
                                            source: "profile \(profileName) in \(path)")
            }
        }
        guard let credentials else {
            throw DownloadError(.authenticationFailed,
                                "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), "
                                + "or give the keys of profile \(profileName) in \(credentialsPath) or \(configPath)",
                                isRetryable: false)
        }

        let region = configuration.region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"]
            ?? fromConfig?["region"] ?? "us-east-1"
        guard isRegion(region) else {
            throw DownloadError(.invalidURL,
                                "the AWS region '\(region)' is not a region name (lower-case letters, digits and hyphens, as eu-central-1)",
                                isRetryable: false)
        }
        var endpoint = configuration.endpoint
        if endpoint == nil, let text = environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"] ?? fromConfig?["endpoint_url"] {
            guard let url = URL(string: text) else {
                throw DownloadError(.invalidURL, "the S3 endpoint '\(text)' is not a URL", isRetryable: false)
            }
            endpoint = url
        }
        if let endpoint {
            guard let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = endpoint.host, !host.isEmpty else {
                throw DownloadError(.invalidURL, "the S3 endpoint \(endpoint.redactingPassword) is not an http or https URL with a host",
                                    isRetryable: false)
            }
        }
        return S3Resolution(credentials: credentials, region: region, endpoint: endpoint)
    }

    /// Whether `region` can be put in a host name and in libcurl's `aws:amz:REGION:s3`: 1 to 64
    /// lower-case letters, digits and hyphens.
    static func isRegion(_ region: String) -> Bool {
        (1...64).contains(region.utf8.count)
            && region.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }
}
