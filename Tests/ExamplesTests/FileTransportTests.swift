@testable import CustomTransportExample
import FileDownload
import Foundation
import Testing

/// The custom transport of Examples/CustomTransport, driven by a real downloader.
@Suite struct FileTransportTests {
    @Test func aDownloaderCopiesAFileThroughTheRegisteredScheme() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("file-transport-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.bin")
        let content = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try content.write(to: source)
        var transports = TransportRegistry()
        transports.register(FileTransport(chunkSize: 4096), for: "file")
        let downloader = Downloader(transports: transports)
        let events = downloader.events()
        let target = dir.appendingPathComponent("copy.bin")
        try await downloader.start(id: "copy", url: source, destination: target)
        for await event in events {
            if case .completed = event { break }
            if case .failed(_, let error, _) = event { Issue.record("failed: \(error)"); break }
        }
        await downloader.shutdown()
        #expect(try Data(contentsOf: target) == content)
    }
}
