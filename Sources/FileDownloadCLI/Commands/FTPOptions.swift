public import ArgumentParser

/// `--ftp-port ADDR`, `--no-passive-ftp` and `--ssl-reqd` for `ftp://` URLs, named as curl
/// (`--ftp-port`, `--ssl-reqd` and its older `--ftp-ssl-reqd`) and wget (`--no-passive-ftp`) name
/// them. curl's short `-P` for `--ftp-port` is not taken: `-P DIR` is the directory, as in wget.
public struct FTPOptions: ParsableArguments {
    @Option(name: .customLong("ftp-port"), help: ArgumentHelp(
        "ftp:// and ftps:// URLs: active mode, the server connects back to ADDR ('-' for the address of the control "
        + "connection; an IP address, host or interface, optionally :PORT or :FIRST-LAST), as curl --ftp-port.",
        valueName: "ADDR"))
    public var ftpPort: String?

    @Flag(name: .customLong("no-passive-ftp"), help: ArgumentHelp(
        "ftp:// and ftps:// URLs: active mode, the server connects back to the address of the control connection "
        + "(as wget; same as --ftp-port -)."))
    public var noPassiveFTP = false

    @Flag(name: [.customLong("ssl-reqd"), .customLong("ftp-ssl-reqd")], help: ArgumentHelp(
        "ftp:// URLs: require TLS (explicit FTPS, AUTH TLS) for the login and the data; a server without it fails "
        + "the download (as curl --ssl-reqd). ftps:// is TLS from the first byte."))
    public var requiresTLS = false

    public init() {}

    /// The options, checked.
    ///
    /// - Throws: `ValidationError` (exit 64) when `--ftp-port` is empty or has a blank.
    func settings() throws -> FTPSettings {
        if let ftpPort, ftpPort.isEmpty || ftpPort.contains(where: \.isWhitespace) {
            throw ValidationError("--ftp-port needs an address, such as - (the control connection's), 192.0.2.7 or eth0:50000-50100")
        }
        let activeAddress = ftpPort ?? (noPassiveFTP ? "-" : nil)
        return FTPSettings(activeModeAddress: activeAddress, requiresTLS: requiresTLS)
    }
}
