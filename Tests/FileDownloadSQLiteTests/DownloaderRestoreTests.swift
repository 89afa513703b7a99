import FileDownload
import FileDownloadMock
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// The store as the Downloader uses it: what one downloader wrote, a downloader on a store newly
/// opened on the same file restores.
@Suite("Downloader restore from an SQLite store")
struct DownloaderRestoreTests {
    private struct Process {
        let clock = ManualClock()
        let mock: MockTransport
        let store: SQLiteDownloadStore
        let downloader: Downloader

        init(path: String, directory: URL) async throws {
            mock = MockTransport(clock: clock)
            for id in ["a", "b", "c", "d"] {
                mock.serve(Self.url(id), MockResource(.seeded(seed: 1, size: 100_000), chunkSize: 1000,
                                                      chunkDelay: .seconds(1)))
            }
            var transports = TransportRegistry()
            transports.register(mock, for: "mock")
            store = try await SQLiteDownloadStore(path: path)
            downloader = Downloader(
                configuration: DownloaderConfiguration(maxConcurrentDownloads: 1, downloadsDirectory: directory),
                transports: transports, store: store, clock: clock)
        }

        static func url(_ id: String) -> URL { URL(string: "mock://files/\(id).bin")! }
    }

    @Test("queue order, paused and running downloads survive the process")
    func restoresStates() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path("downloads.sqlite")

        let first = try await Process(path: path, directory: dir.url)
        for id in ["a", "b", "c", "d"] { try await first.downloader.start(id: id, url: Process.url(id)) }
        _ = try await first.downloader.pause("c")
        await first.downloader.settle()
        #expect(await first.downloader.state(of: "a") == .downloading)

        // The first process "dies" here: no shutdown; a second one opens the same file.
        let second = try await Process(path: path, directory: dir.url)
        let report = try await second.downloader.restore()
        // The SQLite store pages: waiting "b" and "d" stay in it until a slot frees up.
        #expect(report.restored == ["a", "c"])
        #expect(report.resumed == ["a"])
        #expect(await second.downloader.downloads().map(\.id) == ["a", "b", "c", "d"])
        #expect(await second.downloader.state(of: "a") == .downloading)
        #expect(await second.downloader.state(of: "b") == .waiting)
        #expect(await second.downloader.state(of: "c") == .paused)
        #expect(await second.downloader.state(of: "d") == .waiting)
        #expect(await second.downloader.info(of: "a")?.destination == dir.url.appending(path: "a.bin").standardizedFileURL)

        await first.downloader.shutdown()
        await second.downloader.shutdown()
    }

    @Test("a store file edited to aim a staging path outside: restore touches nothing there, nor does cancel")
    func editedStagingPath() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path("downloads.sqlite")
        let outside = try TemporaryDirectory()
        defer { outside.remove() }
        let victim = outside.url.appending(path: "victim")
        let precious = Data(repeating: 0x41, count: 50_000)
        try precious.write(to: victim)

        let first = try await Process(path: path, directory: dir.url)
        try await first.downloader.start(id: "a", url: Process.url("a"))
        first.clock.advance(by: .seconds(3))  // a few chunks on disk, checkpointed
        await first.downloader.refresh()
        _ = try await first.downloader.pause("a")
        await first.downloader.shutdown()
        try RawSQLite.execute("UPDATE downloads SET part_path = '\(victim.path)' WHERE id = 'a'", at: path)

        let second = try await Process(path: path, directory: dir.url)
        _ = try await second.downloader.restore()
        #expect(await second.downloader.state(of: "a") == .failed)
        #expect(await second.downloader.info(of: "a")?.lastErrorCode == .invalidDestination)
        try? await second.downloader.cancel("a")
        await second.downloader.shutdown()
        #expect((try? Data(contentsOf: victim)) == precious)
    }
}
