import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation

/// A temporary directory with served files, the servers a test asked for, and helpers to run
/// one transport attempt into a staging file. Everything is stopped and removed by ``with(nginx:tls:fault:_:)``.
final class HTTPFixture: Sendable {
    let directory: TemporaryDirectory
    let served: URL
    let certificates: TestCertificates?
    /// The fault server over HTTP, when the test asked for it.
    let faultServer: FaultServer?
    let faultTLS: FaultServer?
    let nginx: NginxServer?

    /// The served file `small.bin` (300,000 bytes) and its SHA-256.
    static let smallSize = 300_000
    let smallSHA: String

    /// The fault server over HTTP; only for a fixture made with `fault: true`.
    var fault: FaultServer { faultServer! }

    private init(nginx wantsNginx: Bool, tls: Bool, fault wantsFault: Bool) throws {
        directory = try TemporaryDirectory()
        served = directory.file("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        smallSHA = try TestFiles.write(served.appendingPathComponent("small.bin"), size: Self.smallSize, seed: 1)
        let needsCertificates = tls || wantsNginx
        certificates = needsCertificates ? try TestCertificates(in: directory.url) : nil
        faultServer = wantsFault ? try FaultServer(root: served) : nil
        faultTLS = tls ? try FaultServer(root: served, certificates: certificates) : nil
        if wantsNginx, let certificates {
            nginx = try NginxServer(root: served, certificates: certificates)
        } else {
            nginx = nil
        }
    }

    private func stop() {
        nginx?.stop()
        faultServer?.stop()
        faultTLS?.stop()
        directory.remove()
    }

    /// Runs `body` with a fixture and stops its servers afterwards, whatever happens. `fault:
    /// false` leaves out the fault server over HTTP, for tests that do not use it.
    static func with<T>(nginx: Bool = false, tls: Bool = false, fault: Bool = true,
                        _ body: (HTTPFixture) async throws -> T) async throws -> T {
        let fixture = try HTTPFixture(nginx: nginx, tls: tls, fault: fault)
        defer { fixture.stop() }
        return try await body(fixture)
    }

    /// A new staging path in the fixture's directory, optionally holding the first `prefix`
    /// bytes of the served file `name`.
    func staging(copying prefix: Int = 0, of name: String = "small.bin") throws -> URL {
        let url = directory.file("staging-\(UUID().uuidString.prefix(8)).part")
        let data = try Data(contentsOf: served.appendingPathComponent(name)).prefix(prefix)
        try data.write(to: url)
        return url
    }

    /// One attempt of `transport` into `staging`, starting at the file's length.
    ///
    /// - Returns: the sink, sealed, to inspect its head.
    @discardableResult
    func attempt(
        _ transport: HTTPTransport,
        _ url: URL,
        into staging: URL,
        id: String = "d",
        validator: Validator? = nil,
        options: TransferOptions = TransferOptions(),
        acceptsAnyStatus: Bool = false,
        authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling }
    ) async throws -> TransferSink {
        let offset = TestFiles.size(staging) ?? 0
        let sink = try TransferSink(path: staging.path, requestedOffset: offset) { head in
            if !acceptsAnyStatus, head.disposition != .complete, let status = head.statusCode,
               let error = DownloadError.forStatus(status, retryAfter: head.retryAfter) {
                throw error
            }
        }
        defer { sink.seal() }
        let request = TransferRequest(downloadID: id, url: url, offset: offset, validator: validator,
                                      options: options, authenticate: authenticate)
        try await transport.transfer(request, into: sink)
        return sink
    }

    /// The validator the fault server reports for the served file `name`, learned with one
    /// fault-free download.
    func validator(of name: String, _ transport: HTTPTransport) async throws -> Validator? {
        try await attempt(transport, fault.url(name), into: staging()).head?.validator
    }

    /// The SHA-256 of a served file.
    func sha(of name: String) throws -> String { try TestFiles.sha256(served.appendingPathComponent(name)) }
}
