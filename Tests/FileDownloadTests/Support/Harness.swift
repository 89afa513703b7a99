import FileDownload
import FileDownloadMock
import Foundation
import Logging

/// A downloader on a manual clock with a MockTransport for `mock://`, writing into a fresh
/// temporary directory, and an event recorder subscribed before anything starts.
struct Harness: Sendable {
    let clock = ManualClock()
    let mock: MockTransport
    let downloader: Downloader
    let directory: URL
    let recorder: EventRecorder
    let store: InMemoryDownloadStore?

    init(
        maxConcurrent: Int = 4,
        retry: RetryPolicy = RetryPolicy(maxRetries: 3, initialDelay: .seconds(1), multiplier: 2, jitter: 0),
        progressInterval: Duration = .seconds(3600),
        transfer: TransferOptions = TransferOptions(),
        delegate: (any DownloaderDelegate)? = nil,
        store: InMemoryDownloadStore? = nil,
        directory: URL? = nil,
        resumeInterruptedOnRestore: Bool = true,
        logger: Logger = Logger(label: "FileDownload"),
        wrap: (MockTransport) -> any Transport = { $0 },
        configure: (inout DownloaderConfiguration) -> Void = { _ in }
    ) {
        mock = MockTransport(clock: clock)
        let dir = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("fdl-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        self.directory = dir
        self.store = store
        var transports = TransportRegistry()
        transports.register(wrap(mock), for: "mock")
        var configuration = DownloaderConfiguration(
            maxConcurrentDownloads: maxConcurrent, retryPolicy: retry, progressInterval: progressInterval,
            checkpointInterval: .seconds(1), downloadsDirectory: dir, defaultTransferOptions: transfer,
            resumeInterruptedOnRestore: resumeInterruptedOnRestore, jitterSeed: 42, logger: logger
        )
        configure(&configuration)
        downloader = Downloader(configuration: configuration, transports: transports, store: store,
                                delegate: delegate, clock: clock)
        recorder = EventRecorder(downloader)
    }

    /// A harness whose mock is wrapped in a ``CountingTransport``.
    static func counting(maxConcurrent: Int, retry: RetryPolicy? = nil, progressInterval: Duration = .seconds(3600),
                         store: InMemoryDownloadStore? = nil, directory: URL? = nil) -> (Harness, CountingTransport) {
        nonisolated(unsafe) var counter: CountingTransport!
        let h = Harness(
            maxConcurrent: maxConcurrent,
            retry: retry ?? RetryPolicy(maxRetries: 3, initialDelay: .seconds(1), multiplier: 2, jitter: 0),
            progressInterval: progressInterval,
            store: store,
            directory: directory,
            wrap: { mock in
                counter = CountingTransport(mock)
                return counter
            }
        )
        return (h, counter)
    }

    func url(_ name: String) -> URL { URL(string: "mock://files/\(name)")! }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Serves `size` seeded bytes at `name`.
    @discardableResult
    func serve(_ name: String, size: Int64, seed: UInt64 = 1, chunkSize: Int = 16 * 1024,
               chunkDelay: Duration? = nil) -> MockContent {
        let content = MockContent.seeded(seed: seed, size: size)
        mock.serve(url(name), MockResource(content, chunkSize: chunkSize, chunkDelay: chunkDelay))
        return content
    }

    /// Waits until `n` tasks are parked on the clock (stalled transfers, the tick loop).
    func parked(_ n: Int) async { await clock.waitForSleepers(atLeast: n) }

    /// The contents of the file at `url`, or nil.
    func contents(_ url: URL) -> Data? { FileManager.default.contents(atPath: url.path) }

    func cleanUp() async {
        await downloader.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
