import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// Segments overlap by a window that must match byte for byte: a server that sends bytes of
/// different versions (or zeros) for different ranges under one validator gives a restart on one
/// connection, never a mixed file. On the mock transport and the manual clock.
@Suite("Segments: overlapping windows catch ranges that disagree", .timeLimit(.minutes(2)))
struct SegmentOverlapTests {
    static let size = SegmentTests.size

    /// Downloads "big" over four connections: it restarts because its segments disagree, and
    /// after the restart exactly one request, for the whole file from zero, delivers `content`.
    static func expectRestartOnOneConnection(_ h: Harness, delivers content: MockContent,
                                             sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await h.downloader.start(id: "big", url: h.url("big"), options: SegmentTests.options(connections: 4))
        await SegmentTests.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data, sourceLocation: sourceLocation)
        let names = h.recorder.names(of: "big")
        #expect(names.contains("restarted:segmentsDisagree"), "\(names)", sourceLocation: sourceLocation)
        #expect(!names.contains("restarted:validatorChanged"), sourceLocation: sourceLocation)
        let requests = h.mock.requests(for: h.url("big"))
        let restart = try #require(requests.indices.dropFirst().last { requests[$0].offset == 0 }, sourceLocation: sourceLocation)
        #expect(restart == requests.count - 1, "\(requests)", sourceLocation: sourceLocation)
        #expect(requests[restart].end == nil && requests[restart].validator == nil, sourceLocation: sourceLocation)
        #expect(requests[restart].bytesDelivered == size, sourceLocation: sourceLocation)
    }

    @Test("ranges from two versions under one validator: the download restarts on one connection and delivers one version")
    func twoVersions() async throws {
        let h = SegmentTests.harness()
        let older = SegmentTests.serveBig(h)
        // From the second request on, the server sends another version under the same ETag (a CDN
        // whose back ends are out of step): the first connection keeps the older bytes.
        let newer = MockContent.seeded(seed: 99, size: Self.size)
        h.mock.script(h.url("big"), attempts: [.normal, .changeContent(to: newer, validator: older.defaultValidator)])
        try await Self.expectRestartOnOneConnection(h, delivers: newer)
        await h.cleanUp()
    }

    @Test("one range answered with zeros: the download restarts on one connection and the file is byte-exact")
    func zeroedRange() async throws {
        let h = SegmentTests.harness()
        let content = SegmentTests.serveBig(h)
        let zeros = MockContent.bytes(Data(count: Int(Self.size)))
        // The third request (the second range) gets zeros under the file's ETag; then the file is
        // served as it is again.
        h.mock.script(h.url("big"), attempts: [
            .normal, .normal,
            .changeContent(to: zeros, validator: content.defaultValidator),
            .changeContent(to: content, validator: content.defaultValidator),
        ])
        try await Self.expectRestartOnOneConnection(h, delivers: content)
        await h.cleanUp()
    }

    @Test("ranges that agree: no restart, each range after the first asks for its window before its start")
    func agreeingRanges() async throws {
        let h = SegmentTests.harness()
        let content = SegmentTests.serveBig(h)
        try await h.downloader.start(id: "big", url: h.url("big"), options: SegmentTests.options(connections: 4))
        await SegmentTests.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data)
        #expect(!h.recorder.names(of: "big").contains { $0.hasPrefix("restarted") })
        let ranged = h.mock.requests(for: h.url("big")).dropFirst()
        // Each range starts where the one below ends, and is asked from its window before.
        let ends = ranged.compactMap(\.end).sorted(), starts = ranged.map { $0.offset + SegmentTests.window }.sorted()
        #expect(ranged.count == 3 && Array(ends.dropLast()) == Array(starts.dropFirst()))
        await h.cleanUp()
    }

    @Test("the overlap costs under 0.1 % of the bytes: a 64 MiB file over 8 connections")
    func overlapCost() async throws {
        let size: Int64 = 64 << 20, window: Int64 = 4096
        let h = Harness()  // the default configuration: pieces of 4 MiB at least, windows of 4 KiB
        let content = h.serve("big", size: size, seed: 5, chunkSize: 256 << 10)
        try await h.downloader.start(id: "big", url: h.url("big"), options: SegmentTests.options(connections: 8))
        await SegmentTests.runToCompletion(h)
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        let ranged = requests.filter { $0.end != nil }
        // Cut in eight at the head: the seven ranges after the first start 8 MiB apart, each asked
        // from its window before its start.
        #expect(ranged.prefix(7).map(\.offset) == (1...7).map { Int64($0) * (8 << 20) - window },
                "\(requests.map { ($0.offset, $0.end) })")
        // Every ranged request asks for one window at most: what the overlap adds to the bytes
        // requested, under 0.1 % of the file; the server sent no more than that either.
        let overlap = Int64(ranged.count) * window
        #expect(Double(overlap) / Double(size) < 0.001, "\(overlap) bytes of windows for \(size)")
        #expect(h.mock.bytesServed(for: h.url("big")) <= size + overlap)
        await h.cleanUp()
    }
}
