import FileDownload
import FileDownloadHTTP
import FileDownloadSFTP

/// The transports `fdl` registers, configured from the command line.
enum TransportFactory {
    /// A registry with every transport this build of `fdl` has: HTTP(S) and FTP(S) on libcurl and
    /// SFTP on libssh2, with the command line's redirect, proxy, TLS trust (`--cacert`, `--capath`, `-k`) and SSH
    /// settings.
    ///
    /// - Throws: ``CLIError`` with ``ExitStatus/failure`` when libcurl cannot start.
    static func make(_ settings: GetSettings) throws -> TransportRegistry {
        var registry = TransportRegistry()
        var http = HTTPTransport.Configuration()
        http.allowsHTTPSToHTTPRedirects = settings.allowHTTPSDowngrade
        http.proxy = settings.proxySettings()
        http.caBundlePath = settings.trust.caBundlePath
        http.caDirectoryPath = settings.trust.caDirectoryPath
        http.skipsTLSVerification = settings.trust.skipsVerification
        http.cookieFile = settings.cookieFile
        // -v: the requests' and answers' heads, secrets redacted by the transport.
        if settings.verbose { http.exchangeLog = HTTPTransport.ExchangeLog { Terminal.writeError($0) } }
        do {
            registry.register(try HTTPTransport(configuration: http), for: "http", "https")
        } catch {
            throw CLIError(.failure, "cannot start the HTTP transport: \(DownloadError.wrapping(error).message)")
        }
        var ssh = SFTPTransport.Configuration()
        if let knownHosts = settings.knownHostsFile { ssh.knownHostsFile = knownHosts }
        if !settings.identityFiles.isEmpty { ssh.identityFiles = settings.identityFiles }
        ssh.hostKeyPolicy = settings.acceptNewHostKeys ? .acceptNew : .strict
        registry.register(SFTPTransport(configuration: ssh), for: "sftp")
        do {
            let ftp = FTPTransport.Configuration(usesActiveMode: settings.ftp.activeModeAddress != nil,
                                                 activeModeAddress: settings.ftp.activeModeAddress ?? "-",
                                                 requiresTLS: settings.ftp.requiresTLS, caBundlePath: settings.trust.caBundlePath,
                                                 caDirectoryPath: settings.trust.caDirectoryPath,
                                                 skipsTLSVerification: settings.trust.skipsVerification,
                                                 proxyVariables: settings.ftpProxyVariables())
            registry.register(try FTPTransport(configuration: ftp), for: "ftp", "ftps")
        } catch {
            throw CLIError(.failure, "cannot start the FTP transport: \(DownloadError.wrapping(error).message)")
        }
        do {
            let s3 = S3Transport.Configuration(endpoint: settings.s3.endpoint, region: settings.s3.region, profile: settings.s3.profile,
                                               caBundlePath: settings.trust.caBundlePath, caDirectoryPath: settings.trust.caDirectoryPath,
                                               skipsTLSVerification: settings.trust.skipsVerification, proxy: settings.proxySettings())
            registry.register(try S3Transport(configuration: s3), for: "s3")
        } catch {
            throw CLIError(.failure, "cannot start the S3 transport: \(DownloadError.wrapping(error).message)")
        }
        return registry
    }
}
