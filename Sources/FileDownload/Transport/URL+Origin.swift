public import Foundation

extension URL {
    /// The URL's origin for secrets: scheme, host and port (the scheme's default port when the URL
    /// names none: 80 for `http`, 443 for `https`, 22 for `sftp`), lowercased, as
    /// `scheme://host:port`.
    ///
    /// Secret header fields (``HeaderField/isSensitive``) go only to the origin they were given
    /// for: the ``Downloader`` strips them from an attempt on a mirror of another origin than the
    /// download's first URL, and the HTTP transport re-issues a redirect to another origin
    /// without them. Two URLs may share secrets exactly when their origins are equal.
    public var origin: String {
        let scheme = self.scheme?.lowercased() ?? ""
        let port = self.port ?? Self.defaultPort(ofScheme: scheme)
        return "\(scheme)://\(host?.lowercased() ?? ""):\(port)"
    }

    /// 80, 443, 22 for `http`, `https`, `sftp` (lowercased); -1 for any other scheme. A switch,
    /// not a dictionary literal: that built a dictionary at every call of ``origin``, which the
    /// downloader asks for a few times per attempt.
    private static func defaultPort(ofScheme scheme: String) -> Int {
        switch scheme {
        case "http": 80
        case "https": 443
        case "sftp": 22
        default: -1
        }
    }
}
