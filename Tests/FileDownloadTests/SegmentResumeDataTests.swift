import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// Resume data of a download fetched in segments carries the segments: another downloader (another
/// process, `fdl get` run again) continues each from its own bytes, and falls back to one stream
/// from the contiguous prefix when the staging file does not hold what they say.
@Suite("Resume data of a segmented download", .timeLimit(.minutes(2)))
struct SegmentResumeDataTests {
    /// ``SegmentTests/harness(store:progressInterval:)`` over `directory` (a second process's view).
    static func harness(directory: URL? = nil) -> Harness {
        Harness(progressInterval: .seconds(3600), directory: directory, configure: { configuration in
            configuration.segmentThreshold = 1 << 20
            configuration.minimumSegmentSize = 256 << 10
        })
    }

    /// Pauses a 4-connection download of "big" a few chunks in; returns its resume data and content.
    static func paused(_ h: Harness) async throws -> (ResumeData, MockContent) {
        let content = SegmentTests.serveBig(h)
        try await h.downloader.start(id: "big", url: h.url("big"), options: SegmentTests.options(connections: 4))
        await h.parked(5)  // the tick loop and four connections
        for _ in 0..<3 {
            h.clock.advance(by: .milliseconds(1))
            await h.parked(5)
        }
        let data = try #require(try await h.downloader.pause("big"))
        return (data, content)
    }

    @Test("another downloader continues every segment from its own bytes, none fetched twice")
    func continuesSegments() async throws {
        let first = Self.harness()
        let (data, content) = try await Self.paused(first)
        #expect(data.segments.count == 4)
        #expect(data.bytesOnDisk == data.segments.contiguousPrefix && data.segments.bytesDone > data.bytesOnDisk)
        let decoded = try ResumeData(decoding: data.encoded())
        #expect(decoded == data)
        try await first.downloader.remove("big", keepingStagingFile: true)
        await first.downloader.shutdown()

        let second = Self.harness(directory: first.directory)
        let served = SegmentTests.serveBig(second)
        #expect(served.data == content.data)
        try await second.downloader.start(id: "big", resumeData: decoded)
        await SegmentTests.runToCompletion(second)
        #expect(second.contents(second.file("big")) == content.data)
        let requests = second.mock.requests(for: second.url("big"))
        #expect(requests.count == 4 && requests.allSatisfy { $0.offset > 0 && $0.end != nil }, "\(requests.map { ($0.offset, $0.end) })")
        let firstServed = first.mock.bytesServed(for: first.url("big"))
        let secondServed = second.mock.bytesServed(for: second.url("big"))
        let windows = SegmentTests.overlapAllowance(first) + SegmentTests.overlapAllowance(second)
        #expect(firstServed + secondServed <= SegmentTests.size + windows, "\(firstServed) + \(secondServed) bytes served")
        await second.cleanUp()
    }

    @Test("resume data whose segments the staging file does not hold continues one stream from the prefix")
    func shortFileFallsBack() async throws {
        let first = Self.harness()
        let (data, content) = try await Self.paused(first)
        try await first.downloader.remove("big", keepingStagingFile: true)
        await first.downloader.shutdown()
        // The file lost everything past the prefix (a copy cut short).
        #expect(truncate(data.partPath, off_t(data.bytesOnDisk)) == 0)

        let second = Self.harness(directory: first.directory)
        SegmentTests.serveBig(second)
        var options = data.options
        options.maxConnections = 1
        var oneStream = data
        oneStream.options = options
        try await second.downloader.start(id: "big", resumeData: oneStream)
        await SegmentTests.runToCompletion(second)
        #expect(second.contents(second.file("big")) == content.data)
        #expect(second.mock.requests(for: second.url("big")).map(\.offset) == [data.bytesOnDisk])
        await second.cleanUp()
    }
}
