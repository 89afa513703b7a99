import FileDownload
import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// One file over several SFTP sessions (segments) through a real `Downloader`, against sshd.
@Suite("Segmented downloads over SFTP against sshd", .serialized, .timeLimit(.minutes(3)))
struct SFTPSegmentTests {
    /// Forwards to an `SFTPTransport` and records the range of every request.
    final class RangeRecorder: Transport {
        let base: SFTPTransport
        let ranges = Mutex<[(offset: Int64, end: Int64?)]>([])
        init(_ base: SFTPTransport) { self.base = base }
        var capabilities: TransportCapabilities { base.capabilities }
        func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
            ranges.withLock { $0.append((request.offset, request.end)) }
            try await base.transfer(request, into: writer)
        }
        func shutdown() async { await base.shutdown() }
    }

    /// Downloads a 40 MiB file with `maxConnections` through a transport of the default 4
    /// sessions per host; returns the ranges asked for, the most sessions the transport had open
    /// at once and the SSH connections sshd accepted.
    static func download(maxConnections: Int) async throws -> (ranges: [(offset: Int64, end: Int64?)], sessions: Int, connections: Int) {
        let server = try SSHServer()
        defer { server.stop() }
        let content = Fixtures.bytes(40 << 20, seed: 40)
        try server.serve("big.bin", content)
        let recorder = RangeRecorder(Fixtures.transport(server, maxSessionsPerHost: 4))
        var transports = TransportRegistry()
        transports.register(recorder, for: "sftp")
        let folder = try TemporaryDirectory("sftp-segments")
        defer { folder.remove() }
        let downloader = Downloader(
            configuration: DownloaderConfiguration(retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(100), jitter: 0),
                                                   downloadsDirectory: folder.url),
            transports: transports)
        let events = downloader.events()
        var options = DownloadOptions()
        options.maxConnections = maxConnections
        try await downloader.start(id: "big", url: server.url("big.bin"), options: options)
        var file: URL?
        for await event in events {
            if case .completed("big", let done) = event { file = done; break }
            if case .failed("big", let error, _) = event { Issue.record("failed: \(error)"); break }
        }
        let done = try #require(file)
        #expect(try Fixtures.sha256(file: done) == Fixtures.sha256(content))
        await downloader.shutdown()
        let sessions = recorder.base.mostSessionsAtOnce
        await recorder.shutdown()
        return (recorder.ranges.withLock { $0 }, sessions, server.connectionCount)
    }

    @Test("a 40 MiB file over 4 sessions is byte-exact; the extra sessions asked for ranges")
    func segmented() async throws {
        let (ranges, sessions, _) = try await Self.download(maxConnections: 4)
        #expect(ranges.first?.offset == 0 && ranges.first?.end == nil)
        #expect(ranges.dropFirst().filter { $0.end != nil }.count >= 3, "\(ranges)")
        #expect(sessions == 4, "\(sessions) sessions at once")
    }

    @Test("maxConnections 8 opens 8 SSH sessions, beyond the 4 per host that downloads share: byte-exact")
    func eightSessions() async throws {
        let (ranges, sessions, connections) = try await Self.download(maxConnections: 8)
        #expect(ranges.dropFirst().filter { $0.end != nil }.count >= 7, "\(ranges)")
        // Each segment has its own session: more than the configuration's 4 open at once (shared,
        // the 8 connections would wait for 4 sessions), at most the 8 asked for.
        #expect(sessions > 4 && sessions <= 8, "\(sessions) sessions at once")
        // sshd saw them: a connection stopped at its piece's end mid-read is closed and its next
        // range opens another, so sshd may count more than 8 in all.
        #expect(connections > 4, "\(connections) SSH connections")
    }
}
