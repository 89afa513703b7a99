/// How `ftp://` and `ftps://` URLs are fetched (`--ftp-port`, `--no-passive-ftp`, `--ssl-reqd`):
/// passive and plain `ftp://` by default, as `FTPTransport.Configuration`.
public struct FTPSettings: Sendable, Hashable {
    /// Active mode with the address the server connects back to (`-` for the control
    /// connection's); `nil` for passive mode.
    public var activeModeAddress: String?
    /// `ftp://` must switch to TLS with `AUTH TLS` (explicit FTPS).
    public var requiresTLS: Bool

    public init(activeModeAddress: String? = nil, requiresTLS: Bool = false) {
        self.activeModeAddress = activeModeAddress
        self.requiresTLS = requiresTLS
    }
}
