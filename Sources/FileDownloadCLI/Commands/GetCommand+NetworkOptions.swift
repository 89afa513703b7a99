public import ArgumentParser

extension GetCommand {
    /// The "Network" section of `fdl get --help`: timeouts, proxies, TLS and what the requests carry.
    public struct NetworkOptions: ParsableArguments {
        @Option(help: ArgumentHelp(
            "Give up an attempt when no byte arrives for S seconds (\(GetCommand.timeoutRange.lowerBound)...\(Int(GetCommand.timeoutRange.upperBound))).",
            valueName: "S"))
        public var timeout: Double = 60

        @Option(name: .customLong("connect-timeout"), help: ArgumentHelp(
            "Give up an attempt when its connection is not set up within S seconds (default 30).", valueName: "S"))
        public var connectTimeout: Double?

        @Option(name: .customLong("max-network-wait"), help: ArgumentHelp(
            "Fail a download that has waited S seconds for the network (no route, link down) (default 30; bytes are kept).",
            valueName: "S"))
        public var maxNetworkWait: Double?

        @Option(help: ArgumentHelp(
            "Proxy for every URL instead of http_proxy/https_proxy/all_proxy ('' for none); user:password@ in it is never stored or printed.",
            valueName: "URL"))
        public var proxy: String?

        @Option(name: .customLong("noproxy"), help: ArgumentHelp(
            "Hosts reached without the proxy, comma-separated ('*' for all), instead of no_proxy.", valueName: "LIST"))
        public var noProxy: String?

        @Option(name: .customLong("cacert"), help: ArgumentHelp(
            "Verify HTTPS and FTPS servers with the CA certificates (PEM) in FILE instead of the system's "
            + "(as curl --cacert; default from CURL_CA_BUNDLE, else SSL_CERT_FILE).", valueName: "FILE"))
        public var caCertificate: String?

        @Option(name: .customLong("capath"), help: ArgumentHelp(
            "Also verify HTTPS and FTPS servers with the hashed CA certificates in DIR (openssl rehash; "
            + "as curl --capath; default from SSL_CERT_DIR).", valueName: "DIR"))
        public var caDirectory: String?

        @Flag(name: [.customShort("k"), .customLong("insecure")], help: ArgumentHelp(
            "Do not verify HTTPS and FTPS servers (certificate and name), for a test server with a self-signed "
            + "certificate: anyone on the way can read and change the bytes. Warned about on every run; "
            + "to trust a private CA use --cacert instead."))
        public var insecure = false

        @Flag(help: "Follow redirects from https to http (refused by default).")
        public var insecureAllowHttpDowngrade = false

        @Option(name: .customLong("header"), help: ArgumentHelp(
            "Extra request header 'Name: value' (repeatable). Authorization, Proxy-Authorization and Cookie are never stored.",
            valueName: "H"))
        public var headers: [String] = []

        @Option(name: [.customShort("U"), .customLong("user-agent")], help: ArgumentHelp(
            "The User-Agent header for HTTP(S).", valueName: "AGENT"))
        public var userAgent: String?

        public init() {}
    }
}
