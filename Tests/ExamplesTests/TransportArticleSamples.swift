import FileDownload
import FileDownloadHTTP
import FileDownloadSFTP
import FileDownloadSQLite
import Foundation

// The code samples of the FileDownloadHTTP, FileDownloadSFTP and FileDownloadSQLite articles and docs/,
// compiled here so that they keep compiling (DocumentationSnippetTests checks that they match).

/// Compiled, never called.
func httpArticleSamples() async throws {
    // snippet: http-article-start
    var transports = TransportRegistry()
    transports.register(try HTTPTransport(), for: "http", "https")
    let downloader = Downloader(transports: transports)
    try await downloader.start(id: "iso", url: URL(string: "https://example.org/debian.iso")!)
    // end-snippet

    // snippet: http-article-configuration
    let transport = try HTTPTransport(configuration: .init(
        caBundlePath: "/etc/my-company/ca.pem",
        clientCertificatePath: "/etc/my-company/client.pem",
        clientKeyPath: "/etc/my-company/client.key"))
    // end-snippet
    _ = transport
}

/// Compiled, never called.
func sqliteArticleSamples(transports: TransportRegistry) async throws {
    // snippet: sqlite-article-restore
    let store = try await SQLiteDownloadStore(path: "/var/lib/myapp/downloads.sqlite")
    let downloader = Downloader(transports: transports, store: store)
    try await downloader.restore()
    // end-snippet
}

/// Compiled, never called.
func sftpArticleSamples(myDelegate: any DownloaderDelegate) async throws {
    // snippet: sftp-article-start
    var transports = TransportRegistry()
    transports.register(SFTPTransport(), for: "sftp")
    let downloader = Downloader(transports: transports, delegate: myDelegate)
    try await downloader.start(id: "logs", url: URL(string: "sftp://backup.example/var/log/big.log")!)
    // end-snippet
}
