import FileDownload
import Foundation
import Testing

@Suite("EventRecorder: every wait is bounded")
struct EventRecorderTests {
    @Test("an event that never comes records an issue and the wait returns, instead of hanging")
    func missingEventIsAFailureNotAHang() async throws {
        let h = Harness()
        let recorder = EventRecorder(h.downloader, limit: .milliseconds(200))
        var event: DownloadEvent?
        var interruption: (error: DownloadError, retryIn: Duration?)?
        await withKnownIssue("the awaited event does not come") {
            event = await recorder.state("never-added", .completed)
            interruption = await recorder.interruption(of: "never-added")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("did not come within") }
        }
        // Outside the known-issue block, so that these can fail.
        #expect(event?.id == EventRecorder.timedOutEvent.id)
        #expect(interruption?.error.code == .timedOut && interruption?.retryIn == nil)
        await h.cleanUp()
    }

    @Test("a cancelled wait (the suite's time limit ran out) returns at once, without waiting out its bound")
    func cancelledWaitReturns() async throws {
        let h = Harness()
        let recorder = EventRecorder(h.downloader, limit: .seconds(5))
        let wait = Task { await recorder.state("never-added", .completed) }
        wait.cancel()
        // Were the cancellation ignored, the bound would record "did not come within" in 5 s.
        let event = await wait.value
        #expect(event.id == EventRecorder.timedOutEvent.id)
        await h.cleanUp()
    }

    @Test("an event that comes ends the wait with that event")
    func awaitedEventArrives() async throws {
        let h = Harness()
        h.serve("a", size: 10)
        try await h.downloader.start(id: "a", url: h.url("a"))
        let event = await h.recorder.state("a", .completed)
        #expect(event.id == "a")
        await h.cleanUp()
    }
}
