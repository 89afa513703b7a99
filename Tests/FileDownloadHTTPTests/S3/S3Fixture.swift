import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation

/// An S3-compatible server that checks signatures (moto), a scratch directory, and the ways the
/// S3 tests drive ``S3Transport``: one attempt into a staging file, or a whole download through
/// a ``Downloader``.
struct S3Fixture: Sendable {
    let server: S3Server
    let directory: TemporaryDirectory

    /// Runs `body` with a fresh server and directory, stopped and removed after.
    static func with<T>(_ body: (S3Fixture) async throws -> T) async throws -> T {
        let fixture = S3Fixture(server: try S3Server(), directory: try TemporaryDirectory("s3-out"))
        defer {
            fixture.server.stop()
            fixture.directory.remove()
        }
        return try await body(fixture)
    }

    /// Stores `size` bytes of a pattern as `s3://bucket/key` and returns them.
    @discardableResult
    func serve(_ key: String, bucket: String = "fdl-test", size: Int, seed: UInt8) throws -> Data {
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ Int(seed) &+ $0 >> 10) })
        try server.put(data, bucket: bucket, key: key)
        return data
    }

    /// `s3://bucket/key`, the key percent-encoded as a URL path.
    func url(_ key: String, bucket: String = "fdl-test") -> URL {
        let path = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? key
        return URL(string: "s3://\(bucket)/\(path)")!
    }

    /// A transport reading the server's endpoint with the credentials of `environment`
    /// (by default the IAM user's keys), nothing from this process's environment.
    func transport(environment: [String: String]? = nil, profile: String? = nil) throws -> S3Transport {
        try S3Transport(configuration: .init(
            profile: profile, environment: environment ?? server.environment(), proxy: .none))
    }

    /// One attempt of `transport` into `staging`, from the staging file's length.
    ///
    /// - Returns: the sink, sealed, to inspect its head.
    @discardableResult
    func attempt(_ transport: S3Transport, _ url: URL, into staging: URL, validator: Validator? = nil,
                 end: Int64? = nil) async throws -> TransferSink {
        let offset = (try? FileManager.default.attributesOfItem(atPath: staging.path)[.size] as? Int64) ?? 0
        let sink = try TransferSink(path: staging.path, requestedOffset: offset, end: end)
        defer { sink.seal() }
        let request = TransferRequest(downloadID: "s3", url: url, offset: offset, end: end, validator: validator,
                                      expectedLength: nil)
        try await transport.transfer(request, into: sink)
        return sink
    }

    /// Downloads `url` with a ``Downloader`` on `transport` and returns the file or the error.
    func download(
        _ url: URL, transport: S3Transport, maxConnections: Int? = nil, delegate: (any DownloaderDelegate)? = nil
    ) async throws -> (file: URL?, error: DownloadError?, events: [DownloadEvent]) {
        try await SingleDownload.run(url, transport: transport, schemes: "s3", directory: directory, maxConnections: maxConnections, delegate: delegate,
                                     limit: .seconds(90))
    }
}
