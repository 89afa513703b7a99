public import Foundation

extension FTPTransport {
    /// Settings shared by every transfer of one ``FTPTransport``.
    ///
    /// Every property has a strict default: passive mode, TLS (when used) verified against the
    /// system's trust store, and `ftp://` without TLS unless ``requiresTLS`` asks for it.
    public struct Configuration: Sendable {
        /// Whether the server connects back for the data (active mode, `EPRT`/`PORT` from the
        /// address of the control connection). Default `false`: passive (`EPSV`, then `PASV`),
        /// which crosses NAT and firewalls.
        public var usesActiveMode: Bool
        /// In active mode, the address the server is asked to connect back to, as libcurl's
        /// `CURLOPT_FTPPORT` and curl's `--ftp-port` read it: `-` (the default) for the local address
        /// of the control connection, else an IP address, a host name or an interface name, with an
        /// optional `:PORT` or `:FIRST-LAST` port range. Ignored in passive mode.
        public var activeModeAddress: String
        /// Whether an `ftp://` URL must switch to TLS with `AUTH TLS` (explicit FTPS) for the login
        /// and the data: a server that refuses fails the attempt with
        /// `DownloadError.Code.tlsFailure` (not retryable). Default `false`: plain FTP. An
        /// `ftps://` URL always uses implicit TLS from the first byte.
        public var requiresTLS: Bool
        /// A PEM file of CA certificates to verify servers with, instead of the system's bundle.
        public var caBundlePath: String?
        /// A directory of hashed CA certificates (`c_rehash`) to verify servers with.
        public var caDirectoryPath: String?
        /// Insecure: whether TLS (FTPS) skips verifying the server's certificate chain and name, as
        /// `HTTPTransport.Configuration.skipsTLSVerification` and curl's `-k`. Default `false`.
        public var skipsTLSVerification: Bool
        /// libcurl's receive buffer per transfer in bytes. Default 512 KiB.
        public var receiveBufferSize: Int
        /// How many I/O threads run the transfers. Default 1.
        public var ioThreads: Int
        /// The proxy variables looked at, as curl reads them for `ftp` and `ftps` URLs
        /// (`ftp_proxy`/`FTP_PROXY`, `ftps_proxy`/`FTPS_PROXY`, `all_proxy`/`ALL_PROXY`,
        /// `no_proxy`/`NO_PROXY`). Default: those of the process, read when the configuration is
        /// made. FTP never goes through a proxy and never bypasses one silently: a transfer that
        /// one of them applies to (its host not in `no_proxy`) fails, not retryable, saying how to
        /// connect directly. `[:]` means no proxy.
        public var proxyVariables: [String: String]

        /// Creates a configuration; every argument has the default described on its property.
        public init(
            usesActiveMode: Bool = false,
            activeModeAddress: String = "-",
            requiresTLS: Bool = false,
            caBundlePath: String? = nil,
            caDirectoryPath: String? = nil,
            skipsTLSVerification: Bool = false,
            receiveBufferSize: Int = 512 * 1024,
            ioThreads: Int = 1,
            proxyVariables: [String: String] = ProcessInfo.processInfo.environment
        ) {
            self.usesActiveMode = usesActiveMode
            self.activeModeAddress = activeModeAddress.isEmpty ? "-" : activeModeAddress
            self.requiresTLS = requiresTLS
            self.caBundlePath = caBundlePath
            self.caDirectoryPath = caDirectoryPath
            self.skipsTLSVerification = skipsTLSVerification
            self.receiveBufferSize = receiveBufferSize
            self.ioThreads = max(1, ioThreads)
            self.proxyVariables = proxyVariables.filter { FTPTransport.proxyVariableNames.contains($0.key) }
        }
    }
}
