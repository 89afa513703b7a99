import FileDownload
import FileDownloadHTTP
import Foundation

// The proxy sample of the FileDownloadHTTP article, compiled here so that it keeps compiling
// (DocumentationSnippetTests checks that it matches).

/// Compiled, never called.
func proxyArticleSamples() throws {
    // snippet: http-article-proxy
    let direct = try HTTPTransport(configuration: .init(proxy: .none))
    let proxied = try HTTPTransport(configuration: .init(
        proxy: .all(URL(string: "http://proxy.example:3128")!, noProxy: ["localhost", "127.0.0.1"])))
    // end-snippet
    _ = (direct, proxied)
}
