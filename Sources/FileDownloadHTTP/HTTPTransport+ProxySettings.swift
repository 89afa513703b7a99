public import Foundation

extension HTTPTransport {
    /// Which proxy a transfer goes through, chosen by the scheme of the URL it asks for.
    ///
    /// The default of ``HTTPTransport/Configuration`` is ``environment(_:)``: the proxy variables
    /// of the process, read once when the configuration is made, as curl reads them. ``none``
    /// connects directly whatever the environment says; ``init(http:https:noProxy:)`` names the
    /// proxies explicitly.
    ///
    /// A proxy URL may carry credentials (`http://user:password@proxy:3128`): libcurl sends them
    /// to the proxy (Basic), and they are never logged, never part of an error message, a
    /// `TransferHead` or anything stored. An `https` URL goes through an HTTP proxy in a
    /// `CONNECT` tunnel, so TLS is still verified end to end with the origin. Loopback addresses
    /// are proxied like any other host unless ``noProxy`` names them (as curl does).
    public struct ProxySettings: Sendable, Hashable {
        /// The proxy for `http` URLs; `nil` for a direct connection.
        public var http: URL?
        /// The proxy for `https` URLs; `nil` for a direct connection.
        public var https: URL?
        /// Hosts reached directly (curl's `NO_PROXY`): a host name matches itself and its
        /// subdomains (`example.org` and `.example.org` both match `a.example.org`), an IP address
        /// or CIDR range (`127.0.0.1`, `10.0.0.0/8`) matches those addresses, and `*` matches every
        /// host. libcurl does the matching.
        public var noProxy: [String]

        /// Proxies given explicitly; a `nil` proxy means a direct connection for that scheme.
        public init(http: URL? = nil, https: URL? = nil, noProxy: [String] = []) {
            self.http = http
            self.https = https
            self.noProxy = noProxy
        }

        /// Direct connections, whatever the environment says.
        public static let none = ProxySettings()

        /// One proxy for both schemes, except for the hosts of `noProxy`.
        public static func all(_ proxy: URL, noProxy: [String] = []) -> ProxySettings {
            ProxySettings(http: proxy, https: proxy, noProxy: noProxy)
        }

        /// The proxies the environment names, read the way curl reads them:
        /// - `http` URLs: `http_proxy` (lower case only: `HTTP_PROXY` can be set by a web server's
        ///   request header in CGI programs, so curl ignores it), else `all_proxy`/`ALL_PROXY`;
        /// - `https` URLs: `https_proxy`, else `HTTPS_PROXY`, else `all_proxy`/`ALL_PROXY`;
        /// - exceptions: `no_proxy`, else `NO_PROXY`, split at commas.
        ///
        /// A lower-case variable wins over its upper-case form; an empty variable counts as unset.
        /// A value without a scheme (`proxy:3128`) is an HTTP proxy, as in curl.
        ///
        /// - Parameter environment: the variables; by default the process's.
        public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxySettings {
            func first(_ names: String...) -> String? {
                names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
            }
            let all = first("all_proxy", "ALL_PROXY")
            return ProxySettings(
                http: (first("http_proxy") ?? all).flatMap(proxyURL),
                https: (first("https_proxy", "HTTPS_PROXY") ?? all).flatMap(proxyURL),
                noProxy: hostList(first("no_proxy", "NO_PROXY") ?? ""))
        }

        /// The proxy URL of `text` (`host:port` means `http://host:port`); `nil` when it is not a
        /// URL with a host.
        public static func proxyURL(_ text: String) -> URL? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let full = trimmed.contains("://") ? trimmed : "http://" + trimmed
            guard let url = URL(string: full), let host = url.host, !host.isEmpty else { return nil }
            return url
        }

        /// `text` split at commas, each entry trimmed, empty entries dropped.
        public static func hostList(_ text: String) -> [String] {
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        /// The proxy for a URL of `scheme` (before ``noProxy`` is applied).
        func proxy(forScheme scheme: String) -> URL? {
            scheme.lowercased() == "https" ? https : http
        }
    }
}
