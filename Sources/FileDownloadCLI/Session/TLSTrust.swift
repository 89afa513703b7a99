import Foundation

/// How `fdl get` verifies HTTPS and FTPS servers: the CA certificates it trusts and whether it
/// verifies at all (`-k`).
public struct TLSTrust: Sendable, Hashable {
    /// A PEM file of CA certificates used instead of the system's bundle (`--cacert`,
    /// `CURL_CA_BUNDLE`, `SSL_CERT_FILE`); `nil` for the system's.
    public var caBundlePath: String?
    /// A directory of hashed CA certificates also trusted (`--capath`, `SSL_CERT_DIR`).
    public var caDirectoryPath: String?
    /// `-k/--insecure`: servers are not verified at all.
    public var skipsVerification = false

    public init(caBundlePath: String? = nil, caDirectoryPath: String? = nil, skipsVerification: Bool = false) {
        self.caBundlePath = caBundlePath
        self.caDirectoryPath = caDirectoryPath
        self.skipsVerification = skipsVerification
    }

    /// The trust of a command line, as curl's command line reads it: `--cacert` and `--capath`
    /// win; with neither given, `CURL_CA_BUNDLE` is the CA file, and without it `SSL_CERT_FILE`
    /// the CA file and `SSL_CERT_DIR` the CA directory. Empty variables count as unset.
    public static func resolve(caBundle: String?, caDirectory: String?, insecure: Bool,
                               environment: [String: String]) -> TLSTrust {
        var trust = TLSTrust(caBundlePath: caBundle, caDirectoryPath: caDirectory, skipsVerification: insecure)
        guard caBundle == nil, caDirectory == nil else { return trust }
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let bundle = variable("CURL_CA_BUNDLE") {
            trust.caBundlePath = bundle
        } else {
            trust.caBundlePath = variable("SSL_CERT_FILE")
            trust.caDirectoryPath = variable("SSL_CERT_DIR")
        }
        return trust
    }

    /// The warning `-k` prints on every run that uses it.
    public static let insecureWarning = "fdl: warning: -k/--insecure: HTTPS and FTPS servers are not verified; anyone "
        + "between you and the server can read and change what is downloaded (to trust a private CA, use --cacert FILE)"
}
