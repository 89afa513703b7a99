import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// A control connection that goes silent is bounded by the request timeout, as for HTTP, not by
/// libcurl's own 120 s (or the connect timeout): the attempt fails as `timedOut`, retryable.
@Suite("FTP: a silent server times out with the request timeout", .timeLimit(.minutes(1)))
struct FTPTimeoutTests {
    @Test("silent after the greeting (no reply to USER) or after the login (no reply to MDTM)",
          arguments: [SilentFTPServer.Silence.afterGreeting, .afterLogin])
    func silentServer(_ silence: SilentFTPServer.Silence) async throws {
        let server = try SilentFTPServer(silence)
        defer { server.stop() }
        let directory = try TemporaryDirectory("ftp-silent")
        defer { directory.remove() }
        let staging = directory.file("silent.part")
        let sink = try TransferSink(path: staging.path, requestedOffset: 0)
        defer { sink.seal() }
        let transport = try FTPTransport(configuration: .init(proxyVariables: [:]))
        // A connect timeout far above the request timeout: the login phase must not wait for it.
        let options = TransferOptions(requestTimeout: .seconds(1), connectTimeout: .seconds(120))
        let request = TransferRequest(downloadID: "silent", url: URL(string: "ftp://127.0.0.1:\(server.port)/file.bin")!,
                                      options: options)
        let attempt = Task { () async throws -> DownloadError? in
            do {
                try await transport.transfer(request, into: sink)
                return nil
            } catch {
                return DownloadError.wrapping(error)
            }
        }
        // A bound for a hang only (libcurl's default would be 120 s): the assertion is the code.
        let outcome: DownloadError?
        do {
            outcome = try await attempt.value(within: 30, what: "the silent FTP server's timeout")
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
        let error = try #require(outcome)
        #expect(error.code == .timedOut, "\(error)")
        #expect(error.isRetryable)
        let last = server.commands.last ?? ""
        #expect(last.hasPrefix(silence == .afterGreeting ? "USER" : "MDTM"), "\(server.commands)")
    }
}
