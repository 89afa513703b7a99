import FileDownload
import FileDownloadMock
@testable import FileDownloadPostgres
import FileDownloadTestSupport
import Foundation
import Testing

/// The fence right before a worker moves a finished file into place
/// (`FleetWorker.confirmBeforeMove`): a worker whose lease was taken meanwhile delivers nothing.
@Suite(.timeLimit(.minutes(3))) struct LeaseFenceTests {
    @Test func aWorkerWhoseLeaseWasTakenKeepsTheFinishedFileInStaging() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        let directory = try TemporaryDirectory("fence")
        defer { directory.remove() }
        // The last of two chunks waits on a clock the test moves: the transfer ends when told.
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        let url = URL(string: "mock://files/a.bin")!
        let content = MockContent.seeded(seed: 7, size: 64 * 1024)
        mock.serve(url, MockResource(content, chunkSize: 32 * 1024, chunkDelay: .seconds(1)))
        var transports = TransportRegistry()
        transports.register(mock, for: "mock")

        let queue = PostgresDownloadQueue(settings: try PostgresQueueSettings(url: URL(string: postgres.url)!, password: postgres.password))
        try await queue.add([QueuedDownload(id: "a", url: url, destination: "a.bin")])
        let log = LogCapture()
        // A lease of a minute: no renewal and no fence timer acts during the test. Every move asks
        // the queue (as after a freeze past the lease, when the last renewal is old).
        var configuration = FleetWorker.Configuration(node: "n1", directory: URL(fileURLWithPath: directory.path), lease: .seconds(60))
        configuration.moveConfirmationAge = .zero
        let worker = FleetWorker(queue: queue, transports: transports, configuration: configuration, logger: log.logger)
        let running = Task { try await worker.run() }

        await clock.waitForSleepers(atLeast: 1)  // the first chunk is written, the transfer waits (bounded by the suite's time limit)
        // As if the worker had been frozen past its lease and another had claimed the download.
        _ = try postgres.psql("UPDATE downloads SET claims = claims + 1, lease_owner = 'thief' WHERE id = 'a'")
        #expect(try postgres.psql("SELECT lease_owner FROM downloads WHERE id = 'a'") == "thief")
        clock.advance(by: .seconds(1))
        try await poll("the worker stops the download", limit: .seconds(30)) {
            log.all.contains { $0.message.contains("stops a download: its lease was lost before the file was moved") }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("a.bin")), "the file was delivered without the lease")
        let staged = try FileManager.default.attributesOfItem(atPath: directory.path("a.bin") + ".part")[.size] as? Int
        #expect(staged == 64 * 1024, "the whole file stays in staging")
        #expect(try postgres.psql("SELECT lease_owner || ' ' || state FROM downloads WHERE id = 'a'") == "thief claimed")

        await worker.stop()
        try await running.value
        await queue.close()
    }
}
