import FileDownload
import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// What the HTTP transport tells the downloader's failure table (docs/states.md, "What a failure
/// means") about a connection that failed: against ports on 127.0.0.1 the test holds itself.
@Suite("HTTP: what a failed connection says", .timeLimit(.minutes(1)))
struct HTTPConnectFailureTests {
    func failure(_ url: String, _ options: TransferOptions) async throws -> DownloadError? {
        try await HTTPFixture.with(fault: false) { fx in
            let transport = try HTTPTransport(configuration: .init(proxy: .none))
            let staging = try fx.staging()
            let error = await #expect(throws: DownloadError.self) {
                try await fx.attempt(transport, URL(string: url)!, into: staging, options: options)
            }
            await transport.shutdown()
            return error
        }
    }

    @Test("a connection not set up within the connect timeout: connectionFailed, timed out (a counted retry), not a silent server")
    func connectTimeout() async throws {
        let deaf = try DeafPort()
        let error = try await failure("http://127.0.0.1:\(deaf.port)/x",
                                      TransferOptions(requestTimeout: .seconds(30), connectTimeout: .milliseconds(500)))
        #expect(error?.code == .connectionFailed, "\(String(describing: error))")
        #expect(error?.connectionFailure == .timedOut)
        #expect(error.map { FailurePolicy.classify($0) { true }.failureClass } == .retry)
    }

    @Test("a server that took the connection and sent nothing: timedOut (a counted retry that resumes), not a connection failure")
    func silentAfterConnect() async throws {
        let silent = try SilentPort()
        let error = try await failure("http://127.0.0.1:\(silent.port)/x",
                                      TransferOptions(requestTimeout: .seconds(1), connectTimeout: .seconds(30)))
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(error?.connectionFailure == nil)
        #expect(error.map { FailurePolicy.classify($0) { true }.failureClass } == .retry)
    }

    @Test("a refused connection: refused (the host answered)")
    func refused() async throws {
        let error = try await failure("http://127.0.0.1:1/x", TransferOptions())
        #expect(error?.code == .connectionFailed)
        #expect(error?.connectionFailure == .refused)
    }
}
