import FileDownload
import FileDownloadCLI
import Foundation
import Testing

@Suite struct PlainLogTests {
    @Test func eventsThatMatterToAPersonGetOneLineEach() {
        #expect(PlainLog.line(for: .stateChanged(id: "a", state: .downloading)) == "a: downloading")
        #expect(PlainLog.line(for: .completed(id: "a", file: URL(fileURLWithPath: "/d/a"))) == "a: done -> /d/a")
        #expect(PlainLog.line(for: .restarted(id: "a", reason: .validatorChanged))
            == "a: restarting from zero (the file changed on the server)")
        let error = DownloadError(.hostKeyMismatch, "host key for 127.0.0.1:2222 changed (expected SHA256:abc, got SHA256:def)")
        #expect(PlainLog.line(for: .failed(id: "a", error: error, resumeData: nil))
            == "a: FAILED (hostKeyMismatch): host key for 127.0.0.1:2222 changed (expected SHA256:abc, got SHA256:def)")
        #expect(PlainLog.line(for: .interrupted(id: "a", error: DownloadError(.connectionLost, "reset"), retryIn: .seconds(2)))
            == "a: interrupted: reset; retrying in 0:02")
    }

    /// A download paused in segments: the bytes of every segment, as its progress counted them
    /// (`ResumeData.bytesDone`), not the contiguous prefix one stream would continue from.
    @Test func aPausedDownloadSaysTheBytesItsProgressCounted() throws {
        let segments = [SegmentCheckpoint(start: 0, end: 4 << 20, done: 1 << 20),
                        SegmentCheckpoint(start: 4 << 20, end: 8 << 20, done: 2 << 20)]
        let data = ResumeData(id: "a", url: try #require(URL(string: "https://h/a")), destination: URL(fileURLWithPath: "/d/a"),
                              partPath: "/d/a.part", bytesOnDisk: 1 << 20, validator: nil, expectedLength: 8 << 20,
                              options: DownloadOptions(), segments: segments)
        #expect(data.bytesDone == 3 << 20)
        #expect(PlainLog.line(for: .paused(id: "a", resumeData: data)) == "a: paused at 3.0 MiB")
        #expect(PlainLog.line(for: .paused(id: "a", resumeData: nil), pausedAt: 5 << 20) == "a: paused at 5.0 MiB")
        #expect(PlainLog.line(for: .paused(id: "a", resumeData: nil)) == "a: paused", "no number rather than 0 B")
    }

    @Test func bookkeepingEventsAreLeftOut() {
        #expect(PlainLog.line(for: .stateChanged(id: "a", state: .waiting)) == nil)
        #expect(PlainLog.line(for: .activityCountChanged(1)) == nil)
        #expect(PlainLog.line(for: .totalProgress(TotalProgress())) == nil)
        #expect(PlainLog.line(for: .progress(id: "a", DownloadProgress(receivedBytes: 1, expectedBytes: 2))) == nil)
    }

    @Test func progressLinesShowPercentBytesRateAndETA() {
        let p = DownloadProgress(receivedBytes: 5 * 1024 * 1024, expectedBytes: 20 * 1024 * 1024,
                                 bytesPerSecond: 1024 * 1024, estimatedTimeRemaining: .seconds(15))
        #expect(PlainLog.progressLine(id: "big.iso", p) == "big.iso: 25% 5.0 MiB/20.0 MiB 1.0 MiB/s ETA 0:15")
        #expect(PlainLog.progressLine(id: "x", DownloadProgress(receivedBytes: 10, expectedBytes: nil))
            == "x: 10 B - ETA --:--")
    }
}
