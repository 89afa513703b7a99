import FileDownload
import FileDownloadMock
import Foundation
import Testing
@testable import TestingWithMockExample

/// Examples/TestingWithMock: the app's `AssetUpdater` tested with MockTransport on a ManualClock.
/// The test is the network (scripted faults) and the clock (it moves time when a retry waits):
/// nothing sleeps and every run is the same.
@Suite struct AssetUpdaterTests {
    // snippet: mock-world
    /// A downloader on a manual clock whose `mock://` URLs are served by a MockTransport.
    struct World {
        let clock = ManualClock()
        let mock: MockTransport
        let downloader: Downloader
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assets-\(UUID().uuidString)")

        init(maxRetries: Int = 2) {
            mock = MockTransport(clock: clock)
            var transports = TransportRegistry()
            transports.register(mock, for: "mock")
            let configuration = DownloaderConfiguration(
                retryPolicy: RetryPolicy(maxRetries: maxRetries, initialDelay: .seconds(30), jitter: 0))
            downloader = Downloader(configuration: configuration, transports: transports, clock: clock)
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        /// Moves the clock past every retry delay as soon as a download waits for one.
        func passTimeForRetries() -> Task<Void, Never> {
            let events = downloader.events()
            return Task { [clock, downloader] in
                for await event in events {
                    if case .interrupted(_, _, let delay?) = event {
                        clock.advance(by: delay)
                        await downloader.refresh()
                    }
                }
            }
        }
    }
    // end-snippet

    let model = MockContent.seeded(seed: 7, size: 300_000)
    let modelURL = URL(string: "mock://assets/model.bin")!

    // snippet: mock-test
    @Test func aDroppedConnectionIsRetriedAndResumedWhereItStopped() async throws {
        let world = World()
        world.mock.serve(modelURL, MockResource(model))
        world.mock.script(modelURL, attempts: [.drop(at: 120_000)])  // the first attempt breaks
        let time = world.passTimeForRetries()

        let report = try await AssetUpdater(downloader: world.downloader, directory: world.directory)
            .update([Asset(name: "model.bin", url: modelURL, sha256: model.sha256)])

        #expect(report == AssetReport(ready: ["model.bin"], retries: 1))
        #expect(world.mock.requests(for: modelURL).map(\.offset) == [0, 120_000])
        #expect(FileManager.default.contents(atPath: world.directory.appendingPathComponent("model.bin").path) == model.data)
        #expect(world.mock.unconsumed().isEmpty)
        await world.downloader.shutdown()
        await time.value
    }
    // end-snippet

    @Test func aWrongChecksumIsReportedAndNoFileIsLeft() async throws {
        let world = World()
        world.mock.serve(modelURL, MockResource(model))
        let report = try await AssetUpdater(downloader: world.downloader, directory: world.directory)
            .update([Asset(name: "model.bin", url: modelURL, sha256: String(repeating: "0", count: 64))])
        #expect(report == AssetReport(failed: ["model.bin": "validationFailed"]))
        #expect(!FileManager.default.fileExists(atPath: world.directory.appendingPathComponent("model.bin").path))
        await world.downloader.shutdown()
    }

    @Test func aMissingAssetFailsAtOnceWithoutRetries() async throws {
        let world = World()
        let report = try await AssetUpdater(downloader: world.downloader, directory: world.directory)
            .update([Asset(name: "gone.bin", url: URL(string: "mock://assets/gone.bin")!, sha256: model.sha256)])
        #expect(report == AssetReport(failed: ["gone.bin": "notFound"]))
        #expect(world.mock.requests(for: URL(string: "mock://assets/gone.bin")!).count == 1)
        await world.downloader.shutdown()
    }

    @Test func aServerThatKeepsDroppingExhaustsTheRetries() async throws {
        let world = World(maxRetries: 2)
        world.mock.serve(modelURL, MockResource(model))
        world.mock.script(modelURL, attempts: [.drop(at: 50_000), .drop(at: 100_000), .drop(at: 150_000)])
        let time = world.passTimeForRetries()
        let report = try await AssetUpdater(downloader: world.downloader, directory: world.directory)
            .update([Asset(name: "model.bin", url: modelURL, sha256: model.sha256)])
        #expect(report == AssetReport(failed: ["model.bin": "connectionLost"], retries: 2))
        #expect(world.mock.requests(for: modelURL).map(\.offset) == [0, 50_000, 100_000])
        await world.downloader.shutdown()
        await time.value
    }
}
