import FileDownload
import FileDownloadHTTP

/// The transports `fdl` registers, configured from the command line.
enum TransportFactory {
    /// A registry with every transport this build of `fdl` has: HTTP(S) on libcurl, with the
    /// command line's redirect setting.
    ///
    /// - Throws: ``CLIError`` with ``ExitStatus/failure`` when libcurl cannot start.
    static func make(_ settings: GetSettings) throws -> TransportRegistry {
        var registry = TransportRegistry()
        var http = HTTPTransport.Configuration()
        http.allowsHTTPSToHTTPRedirects = settings.allowHTTPSDowngrade
        do {
            registry.register(try HTTPTransport(configuration: http), for: "http", "https")
        } catch {
            throw CLIError(.failure, "cannot start the HTTP transport: \(DownloadError.wrapping(error).message)")
        }
        return registry
    }
}
