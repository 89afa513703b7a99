import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// A slow last range (a straggler) is split only when that is worth a connection: when the
/// connection that finished its piece can take the upper half of what the slow one has left and
/// both halves keep at least `minimumSegmentSize`. On the mock transport and the manual clock.
@Suite("Straggler split: a slow last range and a free connection", .timeLimit(.minutes(2)))
struct StragglerSplitTests {
    @Test("a 4 MiB file over 2 connections, the second slow: split when its remainder holds two pieces of the minimum, not when it does not; byte-exact either way, no byte fetched twice",
          arguments: [(minimum: Int64(256 << 10), splits: true), (minimum: Int64(1536 << 10), splits: false)])
    func splitsOnlyWhenWorthwhile(minimum: Int64, splits: Bool) async throws {
        let h = Harness(configure: {
            $0.segmentThreshold = 1 << 20
            $0.minimumSegmentSize = minimum
        })
        let content = SegmentTests.serveBig(h)
        h.mock.script(h.url("big"), attempts: [.normal, .slow(.milliseconds(50))])
        try await h.downloader.start(id: "big", url: h.url("big"), options: SegmentTests.options(connections: 2))
        let pump = SegmentTests.lockstepPump(h, h.url("big"))
        await h.recorder.state("big", .completed)
        pump.cancel()
        #expect(h.contents(h.file("big")) == content.data)
        let requests = h.mock.requests(for: h.url("big"))
        // The slow range had about 2 MiB left when the first connection finished its half.
        // (a connection that finished a stolen half may steal again)
        #expect(splits ? requests.count >= 3 : requests.count == 2, "\(requests.map { ($0.offset, $0.end) })")
        if splits { #expect(requests[2].offset > requests[1].offset && requests[2].end == SegmentTests.size) }
        let window = min(4096, minimum / 1024)
        let served = h.mock.bytesServed(for: h.url("big"))
        #expect(served <= SegmentTests.size + window * Int64(requests.count - 1))
        await h.cleanUp()
    }
}
