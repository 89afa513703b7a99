import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation

/// A vsftpd server, a scratch directory and the ways the FTP tests drive ``FTPTransport``: one
/// attempt into a staging file, or a whole download through a ``Downloader``.
struct FTPFixture: Sendable {
    let server: VsftpdServer
    let directory: TemporaryDirectory

    /// Runs `body` with a fresh server and directory, stopped and removed after.
    static func with<T>(
        tls: VsftpdServer.TLS = .none, deniedCommands: [String] = [], _ body: (FTPFixture) async throws -> T
    ) async throws -> T {
        let fixture = FTPFixture(server: try VsftpdServer(tls: tls, deniedCommands: deniedCommands),
                                 directory: try TemporaryDirectory("ftp-out"))
        defer {
            fixture.server.stop()
            fixture.directory.remove()
        }
        return try await body(fixture)
    }

    /// Serves `size` bytes of a fixed pattern as `name`, modified at `modified`.
    @discardableResult
    func serve(_ name: String, size: Int, seed: UInt8, modified: Date = Date(timeIntervalSince1970: 1_700_000_000)) throws -> Data {
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ $0 >> 9) })
        return try server.serve(name, data, modified: modified)
    }

    /// One attempt of `transport` into `staging`, from the staging file's length.
    ///
    /// - Returns: the sink, sealed, to inspect its head.
    @discardableResult
    func attempt(
        _ transport: FTPTransport, _ url: URL, into staging: URL, validator: Validator? = nil, end: Int64? = nil,
        authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling }
    ) async throws -> TransferSink {
        let offset = (try? FileManager.default.attributesOfItem(atPath: staging.path)[.size] as? Int64) ?? 0
        let sink = try TransferSink(path: staging.path, requestedOffset: offset, end: end)
        defer { sink.seal() }
        let request = TransferRequest(downloadID: "ftp", url: url, offset: offset, end: end, validator: validator,
                                      authenticate: authenticate)
        try await transport.transfer(request, into: sink)
        return sink
    }

    /// Downloads `url` with a ``Downloader`` on `transport` and returns the file or the error.
    func download(
        _ url: URL, transport: FTPTransport, delegate: (any DownloaderDelegate)? = nil
    ) async throws -> (file: URL?, error: DownloadError?, events: [DownloadEvent]) {
        try await SingleDownload.run(url, transport: transport, schemes: "ftp", "ftps", directory: directory, delegate: delegate,
                                     limit: .seconds(60))
    }
}
