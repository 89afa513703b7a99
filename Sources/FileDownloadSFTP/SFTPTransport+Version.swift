internal import CSSH2

extension SFTPTransport {
    /// The version of the libssh2 this process runs with (`1.10.0`): for version and bug reports.
    public static var libssh2Version: String {
        guard let text = libssh2_version(0) else { return "unknown" }
        return String(cString: text)
    }
}
