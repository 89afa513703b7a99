import FileDownload
public import Foundation

extension S3Transport {
    /// Settings shared by every transfer of one ``S3Transport``.
    ///
    /// By default the transport talks to AWS in the region the environment or the profile names
    /// (else `us-east-1`), with the credentials the AWS CLI would use, TLS verified against the
    /// system's trust store. Every setting left `nil` is read again at each attempt, in the
    /// order ``S3Transport`` describes.
    public struct Configuration: Sendable {
        /// The S3-compatible endpoint (`http://127.0.0.1:9000`, `https://storage.example.org`),
        /// as the AWS CLI's `--endpoint-url`; a path in it is kept before the bucket. `nil`:
        /// `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the profile's `endpoint_url`, else AWS.
        public var endpoint: URL?
        /// The region requests are signed for (`eu-central-1`). `nil`: `AWS_REGION`,
        /// `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1`.
        public var region: String?
        /// The profile of the shared files to use, as the AWS CLI's `--profile`: its credentials
        /// are used even when the environment has keys. `nil`: `AWS_PROFILE`, else `default`
        /// (after the environment's keys).
        public var profile: String?
        /// Virtual-hosted or path-style requests. Default ``AddressingStyle/automatic``.
        public var addressingStyle: AddressingStyle
        /// The environment the AWS variables and `HOME` are read from. Default: the process's,
        /// when the configuration is made. Only the `AWS_` variables and `HOME` are kept; the
        /// configuration's description, debug description and mirror never show their values.
        public var environment: [String: String] {
            get { keptEnvironment }
            set { keptEnvironment = Self.kept(newValue) }
        }
        private var keptEnvironment: [String: String] = [:]
        /// A PEM file of CA certificates to verify the endpoint with, instead of the system's bundle.
        public var caBundlePath: String?
        /// A directory of hashed CA certificates (`c_rehash`) to verify the endpoint with.
        public var caDirectoryPath: String?
        /// Insecure: skip verifying the endpoint's certificate, as curl's `-k`. Default `false`.
        public var skipsTLSVerification: Bool
        /// The proxies requests go through, as ``HTTPTransport/Configuration/proxy``. Default: the
        /// environment's, as curl reads them.
        public var proxy: HTTPTransport.ProxySettings
        /// The `User-Agent` sent when `TransferOptions.userAgent` is `nil`.
        public var userAgent: String
        /// How many I/O threads run the transfers, as ``HTTPTransport/Configuration/ioThreads``.
        public var ioThreads: Int?

        /// Creates a configuration; every parameter has the default described on its property.
        public init(
            endpoint: URL? = nil,
            region: String? = nil,
            profile: String? = nil,
            addressingStyle: AddressingStyle = .automatic,
            environment: [String: String] = ProcessInfo.processInfo.environment,
            caBundlePath: String? = nil,
            caDirectoryPath: String? = nil,
            skipsTLSVerification: Bool = false,
            proxy: HTTPTransport.ProxySettings = .environment(),
            userAgent: String = "swift-file-download/1.0",
            ioThreads: Int? = nil
        ) {
            self.endpoint = endpoint
            self.region = region
            self.profile = profile
            self.addressingStyle = addressingStyle
            self.keptEnvironment = Self.kept(environment)
            self.caBundlePath = caBundlePath
            self.caDirectoryPath = caDirectoryPath
            self.skipsTLSVerification = skipsTLSVerification
            self.proxy = proxy
            self.userAgent = userAgent
            self.ioThreads = ioThreads
        }
    }
}

extension S3Transport.Configuration {
    /// The variables of `environment` an attempt reads: `AWS_*` and `HOME`.
    static func kept(_ environment: [String: String]) -> [String: String] {
        environment.filter { $0.key.hasPrefix("AWS_") || $0.key == "HOME" }
    }
}

extension S3Transport.Configuration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The endpoint, region, profile and addressing style, and the names (never the values) of
    /// the environment's AWS variables.
    public var description: String {
        let endpoint = endpoint.map { QueryRedaction.redactingValues($0.redactingPassword) } ?? "AWS"
        return "S3Transport.Configuration(endpoint: \(endpoint), region: \(region ?? "from the environment"), "
            + "profile: \(profile ?? "from the environment"), addressingStyle: \(addressingStyle), "
            + "environment: [\(environment.keys.sorted().joined(separator: ", "))])"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror with ``description`` as its only child, so `dump` shows no secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
