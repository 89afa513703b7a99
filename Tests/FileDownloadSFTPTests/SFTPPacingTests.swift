import FileDownload
import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Testing

/// `SFTPTransport` honours `TransferSink.pacingDelay` (the downloader's overall limit): it waits
/// on the session's thread while the shared limiter is in debt, and goes on when the limit rises.
@Suite("SFTPTransport paces by the sink's shared limiter", .serialized, .timeLimit(.minutes(1)))
struct SFTPPacingTests {
    @Test("a limiter in debt holds the transfer after one read; lifting the limit lets it finish byte-exact")
    func holdsThenFinishes() async throws {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(3 * 1024 * 1024, seed: 5)
        try server.serve("paced.bin", content)
        let transport = Fixtures.transport(server)
        let folder = try TemporaryDirectory("sftp-pacing")
        defer { folder.remove() }
        let limiter = BandwidthLimiter(bytesPerSecond: 1_000_000)
        limiter.consume(3_600_000_000)  // an hour of debt
        let path = folder.path("paced.part")
        let sink = try TransferSink(path: path, requestedOffset: 0, pacing: limiter)
        let request = TransferRequest(downloadID: "paced", url: server.url("paced.bin"))
        let transfer = Task { try await transport.transfer(request, into: sink) }

        try await poll("the first read arrived", limit: .seconds(60)) { sink.fileLength > 0 }
        let first = sink.fileLength
        try await Task.sleep(for: .milliseconds(300))
        #expect(sink.fileLength == first, "the transfer read on while the limiter was an hour in debt")

        limiter.bytesPerSecond = nil  // taken up within 100 ms
        try await transfer.value
        sink.seal()
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == content)
        await transport.shutdown()
    }
}
