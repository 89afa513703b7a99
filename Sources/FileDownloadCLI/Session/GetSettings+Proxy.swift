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
}
