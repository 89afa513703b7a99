import Synchronization
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

    @Test("an abandoned attempt that returns late cannot touch the file a later attempt completed")
    func abandonedAttemptReturnsLate() async throws {
        let mockHolder = Mutex<ZombieTransport?>(nil)
        // Above the size from which the sink reserves the space announced (the late release of that
        // reservation is what cut the file).
        let content = MockContent.seeded(seed: 5, size: TransferSink.preallocationThreshold + (1 << 20))
        let h = Harness(wrap: { mock in
            let zombie = ZombieTransport(mock: mock, content: content, written: 1 << 20)
            mockHolder.withLock { $0 = zombie }
            return zombie
        })
        let zombie = try #require(mockHolder.withLock { $0 })
        h.mock.serve(h.url("a"), MockResource(content, chunkSize: 1 << 20))
        try await h.downloader.start(id: "a", url: h.url("a"))
        await zombie.waitUntilStuck()
        try await Self.pauseAfterStopTimeout(h, "a")
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        // The stuck attempt returns now: its late write is refused, and whatever it does with its
        // descriptor (giving back a reservation cuts the file to its length) must not reach the
        // completed file.
        await zombie.release()
        #expect(h.contents(h.file("a")) == content.data)
        await h.cleanUp()
    }

    @Test("an attempt stuck after its transport returned keeps its bytes when it is abandoned")
    func stuckAfterTheTransport() async throws {
        let stuck = StuckValidation()
        let h = Harness(delegate: stuck)
        let content = h.serve("a", size: 50_000, chunkSize: 10_000)
        try await h.downloader.start(id: "a", url: h.url("a"))
        await stuck.waitUntilStuck()
        try await Self.pauseAfterStopTimeout(h, "a")
        #expect(await h.downloader.state(of: "a") == .paused)
        #expect(await h.downloader.info(of: "a")?.progress.receivedBytes == 50_000)
        stuck.release()
        try await h.downloader.resume("a")
        await h.recorder.state("a", .completed)
        #expect(h.contents(h.file("a")) == content.data)
        #expect(h.mock.bytesServed(for: h.url("a")) == 50_000, "no byte fetched twice")
        await h.cleanUp()
    }

    /// Pauses `id`, whose attempt does not stop, and lets the stop timeout pass on the clock.
    static func pauseAfterStopTimeout(_ h: Harness, _ id: String) async throws {
        let pausing = Task { _ = try await h.downloader.pause(id) }
        await h.parked(2)  // the tick loop and the stop deadline
        h.clock.advance(by: Downloader.stopTimeout)
        try await pausing.value
    }
}
