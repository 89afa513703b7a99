import FileDownloadHTTP
import Foundation

extension GetSettings {
    /// The proxies of the HTTP transport: the environment's (as curl reads it), with `--proxy`
    /// replacing the proxy for both schemes (`""`: none) and `--noproxy` replacing `no_proxy`.
    /// As in curl, `no_proxy` from the environment still applies to a `--proxy`.
    func proxySettings(environment: [String: String] = ProcessInfo.processInfo.environment) -> HTTPTransport.ProxySettings {
        var settings = HTTPTransport.ProxySettings.environment(environment)
        if let proxy {
            let url = HTTPTransport.ProxySettings.proxyURL(proxy)
            settings.http = url
            settings.https = url
        }
        if let noProxy { settings.noProxy = HTTPTransport.ProxySettings.hostList(noProxy) }
        return settings
    }

    /// The proxy variables the FTP transport checks (FTP never goes through a proxy: a transfer
    /// one applies to fails): the environment's, with `--proxy` replacing them for every scheme
    /// (`""`: none) and `--noproxy` replacing `no_proxy`, as for HTTP.
    func ftpProxyVariables(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var variables = environment
        if let proxy {
            for name in ["ftp_proxy", "FTP_PROXY", "ftps_proxy", "FTPS_PROXY", "all_proxy", "ALL_PROXY"] { variables[name] = nil }
            if !proxy.isEmpty { variables["all_proxy"] = proxy }
        }
        if let noProxy {
            variables["NO_PROXY"] = nil
            variables["no_proxy"] = noProxy
        }
        return variables
    }
}
