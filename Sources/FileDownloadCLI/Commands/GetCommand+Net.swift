import ArgumentParser
import FileDownload
import FileDownloadHTTP
import Foundation

extension GetCommand {
    /// The proxy schemes `--proxy` accepts (libcurl's).
    static let proxySchemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// `settings` with `--proxy`, `--noproxy`, `--cacert`, `--capath`, `-k`, `--content-disposition`, `--mirror` and `-N` applied.
    ///
    /// - Throws: `ValidationError` for a proxy that is not a URL with a host and a scheme libcurl
    ///   speaks, a `--mirror` with several URLs or one that is not a URL. Messages never show a
    ///   password.
    func withNetOptions(_ settings: GetSettings) throws -> GetSettings {
        var settings = settings
        if let proxy = network.proxy, !proxy.isEmpty {
            guard let url = HTTPTransport.ProxySettings.proxyURL(proxy),
                  Self.proxySchemes.contains(url.scheme?.lowercased() ?? "") else {
                throw ValidationError("--proxy '\(InputValidation.redactingPassword(proxy))' is not a proxy URL; write it as "
                                      + "http://host:port (or https://, socks5://, socks5h://), or '' for none")
            }
        }
        settings.proxy = network.proxy
        settings.noProxy = network.noProxy
        settings.trust = try tlsTrust(environment: ProcessInfo.processInfo.environment)
        settings.usesServerFileName = naming.contentDisposition
        settings.timestamping = downloading.timestamping
        if !downloading.mirrorURLs.isEmpty {
            guard settings.urls.count == 1 else {
                throw ValidationError("--mirror gives more URLs of the one URL's file; for \(settings.urls.count) URLs "
                                      + "give mirrors per URL with -i FILE")
            }
            settings.mirrors = [try downloading.mirrorURLs.map(Self.parseURL)]
        }
        return settings
    }
}
