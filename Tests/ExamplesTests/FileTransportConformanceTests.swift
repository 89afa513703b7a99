@testable import CustomTransportExample
import FileDownload
import FileDownloadConformance
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The custom transport of Examples/CustomTransport passes the transport conformance suite: the
/// "server" is a directory of files, plus a named pipe that sends some bytes and then stalls.
@Suite struct FileTransportConformanceTests {
    @Test func fileTransportPassesTheConformanceSuite() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("file-conformance-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("scratch"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let resource = dir.appendingPathComponent("resource.bin")
        try Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: resource)
        let stalling = dir.appendingPathComponent("stalling.fifo")
        guard mkfifo(stalling.path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        let writer = StallingWriter(path: stalling.path)
        defer { writer.finish() }

        // snippet: file-transport-conformance
        let fixture = ConformanceFixture(
            resource: resource,
            expectedContent: { try Data(contentsOf: resource) },
            missingResource: dir.appendingPathComponent("missing.bin"),
            changeResource: {
                // Same size, other bytes, a later mtime: a new validator.
                try Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }).write(to: resource)
                try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(10)],
                                                      ofItemAtPath: resource.path)
            },
            stallingResource: stalling,
            scratchDirectory: dir.appendingPathComponent("scratch"))
        let report = await TransportConformance(transport: FileTransport(), fixture: fixture).run()
        #expect(report.passed, "\(report)")
        // end-snippet
        #expect(report["cancellation"]?.isFailure == false)
    }
}

/// Opens a named pipe for writing on a thread of its own, writes 64 KiB, and keeps it open until
/// ``finish()``: a resource that sends a head and some bytes, then stalls.
final class StallingWriter: Sendable {
    private let path: String
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        self.path = path
        let done = self.done
        Thread {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            let bytes = [UInt8](repeating: 0x5A, count: 65_536)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            done.wait()
            close(fd)
        }.start()
    }

    /// Closes the pipe (unblocking the writer thread), opening it for reading first if nobody did.
    func finish() {
        let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        done.signal()
        if reader >= 0 { close(reader) }
    }
}
