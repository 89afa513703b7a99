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
    /// `TransferHead` or anything stored (a proxy URL in a message shows `***` for its user
    /// information). An `https` URL goes through an HTTP proxy in a
    /// `CONNECT` tunnel, so TLS is still verified end to end with the origin. Loopback addresses
    /// are proxied like any other host unless ``noProxy`` names them (as curl does).
    ///
    /// A proxy the transport cannot use is never skipped silently (that would connect directly
    /// behind the user's back): a proxy URL whose scheme is not one of ``supportedSchemes``, and
    /// an environment variable that does not parse as a proxy URL (as curl does), make every
    /// transfer that would use it fail with `DownloadError.Code.invalidURL`, naming the variable
    /// and the proxy with its credentials redacted.
    public struct ProxySettings: Sendable, Hashable {
        /// The proxy for `http` URLs; `nil` for a direct connection. Setting it forgets an
        /// unusable environment variable for `http` URLs.
        public var http: URL? { didSet { httpProblem = nil } }
        /// The proxy for `https` URLs; `nil` for a direct connection. Setting it forgets an
        /// unusable environment variable for `https` URLs.
        public var https: URL? { didSet { httpsProblem = nil } }
        /// Why the environment's proxy for `http` (`https`) URLs cannot be used, redacted; set by
        /// ``environment(_:)`` only.
        private var httpProblem: String?
        private var httpsProblem: String?

        /// The proxy schemes libcurl speaks: `http`, `https`, `socks4`, `socks4a`, `socks5`,
        /// `socks5h`.
        public static let supportedSchemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]
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
        /// A value without a scheme (`proxy:3128`) is an HTTP proxy, as in curl. A value that is
        /// not a proxy URL (``proxyURL(_:)`` gives `nil`, e.g. `htpp://proxy:3128`) is not
        /// ignored: transfers of that scheme fail, naming the variable (see the type).
        ///
        /// - Parameter environment: the variables; by default the process's.
        public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxySettings {
            func first(_ names: String...) -> (name: String, value: String)? {
                names.lazy.compactMap { name in environment[name].map { (name, $0) } }.first { !$0.value.isEmpty }
            }
            let all = first("all_proxy", "ALL_PROXY")
            let http = first("http_proxy") ?? all
            let https = first("https_proxy", "HTTPS_PROXY") ?? all
            var settings = ProxySettings(
                http: http.flatMap { proxyURL($0.value) },
                https: https.flatMap { proxyURL($0.value) },
                noProxy: hostList(first("no_proxy", "NO_PROXY")?.value ?? ""))
            settings.httpProblem = http.flatMap { problem(with: $0.value, from: $0.name) }
            settings.httpsProblem = https.flatMap { problem(with: $0.value, from: $0.name) }
            return settings
        }

        /// The proxy URL of `text` (`host:port` means `http://host:port`); `nil` when it is not a
        /// URL with a host and one of the ``supportedSchemes``.
        public static func proxyURL(_ text: String) -> URL? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let full = trimmed.contains("://") ? trimmed : "http://" + trimmed
            guard let url = URL(string: full), let host = url.host, !host.isEmpty,
                  supportedSchemes.contains(url.scheme?.lowercased() ?? "") else { return nil }
            return url
        }

        /// Why `text` (the value of the variable `name`) is not a usable proxy URL, with any user
        /// information redacted; `nil` when ``proxyURL(_:)`` accepts it.
        static func problem(with text: String, from name: String) -> String? {
            guard proxyURL(text) == nil else { return nil }
            return "the proxy in \(name) (\(redactingUserInformation(in: text))) is not a proxy URL: write it as "
                + "http://host:port (or https://, socks4://, socks4a://, socks5://, socks5h://)"
        }

        /// Why the proxy for a URL of `scheme` cannot be used, or `nil`.
        func problem(forScheme scheme: String) -> String? {
            scheme.lowercased() == "https" ? httpsProblem : httpProblem
        }

        /// `text` with the user information of every URL in it (`scheme://user:password@`)
        /// replaced by `***`: libcurl's messages quote proxy URLs whole.
        static func redactingUserInformation(in text: String) -> String {
            text.replacing(/(?<scheme>[A-Za-z][A-Za-z0-9+.\-]*:\/\/)[^\/@\s'"]*@/) { "\($0.output.scheme)***@" }
        }

        /// `text` split at commas, each entry trimmed, empty entries dropped.
        public static func hostList(_ text: String) -> [String] {
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        /// Whether `http` and `https` URLs are treated differently (another proxy, or a problem
        /// for one of them): a redirect from one to the other must change the proxy.
        var differsBetweenSchemes: Bool {
            http != https || httpProblem != httpsProblem
        }

        /// The proxy for a URL of `scheme` (before ``noProxy`` is applied).
        func proxy(forScheme scheme: String) -> URL? {
            scheme.lowercased() == "https" ? https : http
        }
    }
}
