public import ArgumentParser

extension GetCommand {
    /// The "Authentication" section of `fdl get --help`: credentials for servers that ask: passwords, netrc, secret header fields, cookies and SSH keys.
    public struct AuthenticationOptions: ParsableArguments {
        @Option(name: .customLong("user"), help: ArgumentHelp(
            "User and password for servers that ask (HTTP 401, SSH password); without :PASS it is asked on the terminal. "
            + "Never stored or printed.", valueName: "USER[:PASS]"))
        public var user: String?

        @Flag(name: .customLong("netrc"), help: "Take user and password for a host from ~/.netrc (as curl --netrc).")
        public var netrc = false

        @Option(name: .customLong("netrc-file"), help: ArgumentHelp(
            "Take user and password for a host from FILE, in .netrc format.", valueName: "FILE"))
        public var netrcFile: String?

        @Option(name: .customLong("header-secret"), help: ArgumentHelp(
            "Extra request header 'Name: value' whose value is a secret: never stored, never printed (repeatable).",
            valueName: "H"))
        public var secretHeaders: [String] = []

        @Option(name: [.customShort("b"), .customLong("cookie")], help: ArgumentHelp(
            "Send the cookies of FILE (Netscape cookies.txt format, as curl -b FILE) to HTTP servers they match; "
            + "'NAME=VALUE; ...' sends those cookies. Never stored or printed; fdl writes no cookie file.",
            valueName: "FILE"))
        public var cookie: String?

        @Option(name: .customLong("load-cookies"), help: ArgumentHelp(
            "The same as -b FILE (as wget --load-cookies).", valueName: "FILE"))
        public var loadCookies: String?

        @Option(help: ArgumentHelp("SSH private key for sftp:// (repeatable; default ~/.ssh/id_*).", valueName: "FILE"))
        public var identity: [String] = []

        @Option(help: ArgumentHelp("SSH known hosts file (default ~/.ssh/known_hosts).", valueName: "FILE"))
        public var knownHosts: String?

        @Flag(help: "Trust SSH hosts seen for the first time and record their keys (a changed key is always refused).")
        public var acceptNewHostKeys = false

        public init() {}
    }
}
