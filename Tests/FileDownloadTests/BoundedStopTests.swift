import FileDownload
import FileDownloadMock
import Foundation
import Testing

@Suite("Bounded waits on a transport that ignores cancellation", .timeLimit(.minutes(1)))
struct BoundedStopTests {
    @Test("pause and cancel of an attempt that never stops return after the stop timeout on the clock",
          arguments: [DownloadState.paused, .cancelled])
    func deafTransport(_ wanted: DownloadState) async throws {
        let deaf = DeafTransport()
        let h = Harness(wrap: { _ in deaf })
        try await h.downloader.start(id: "a", url: h.url("a"))
        await deaf.waitForTransfer()
        let stopping = Task {
            if wanted == .paused { _ = try await h.downloader.pause("a") } else { try await h.downloader.cancel("a") }
        }
        await h.parked(2)  // the tick loop and the stop deadline
        h.clock.advance(by: Downloader.stopTimeout)
        try await stopping.value
        #expect(await h.downloader.state(of: "a") == wanted)
        deaf.release()
        await h.cleanUp()
    }
}
