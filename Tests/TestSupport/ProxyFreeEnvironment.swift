public import Foundation

/// The proxy variables curl (and so the HTTP transport, `fdl` and `curl` itself) reads. A proxy
/// of the machine running the tests would take the requests meant for the loopback servers, so
/// every process a test starts gets an environment without them (tests that want a proxy set
/// one), and every `HTTPTransport` a test makes in process is given ``ProxySettings/none`` or a
/// proxy of its own.
public enum ProxyFreeEnvironment {
    /// `http_proxy`, `https_proxy`, `ftp_proxy`, `ftps_proxy`, `all_proxy`, `no_proxy`, in both cases.
    public static let variables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ftp_proxy", "FTP_PROXY",
                                   "ftps_proxy", "FTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

    /// `environment` (by default this process's) without ``variables``.
    public static func of(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        environment.filter { !variables.contains($0.key) }
    }
}
