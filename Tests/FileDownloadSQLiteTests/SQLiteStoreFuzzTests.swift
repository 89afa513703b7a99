import FileDownload
import FileDownloadMock
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// A seeded fuzz run over the SQLite store's reader: a store file whose row another program (or a
/// disk) changed to hostile values must give a clear ``DownloadError`` (code `store`) or records
/// that ``Downloader/restore()`` handles, without a trap, a hang, or a change to a file outside the
/// downloads directory that no record names as its destination.
///
/// `FDL_FUZZ_ITERATIONS` (default 120) variants from `FDL_FUZZ_SEED`; each changes one to three
/// columns of a valid row. A failure names the changes.
@Suite("Fuzz: the SQLite store's rows", .timeLimit(.minutes(5)))
struct SQLiteStoreFuzzTests {
    static let columns = [
        "id", "url", "destination", "part_path", "state", "validator_kind", "validator_value", "validator_strong",
        "checkpointed_bytes", "expected_length", "options", "queue_order", "error_code", "error_messages", "attempts",
    ]

    /// Longer than the row's checkpoint, so that a cut to it would show.
    static let sentinelBytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    @Test("a hostile row: a clear store error, or a restore that stays in its directory")
    func hostileRows() async throws {
        var random = SplitMix64(seed: HostileJSON.seed(default: 0x5EED_0003))
        for index in 0..<HostileJSON.iterations(default: 120) {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-sqlfuzz-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let downloads = root.appendingPathComponent("dl")
            let sentinel = root.appendingPathComponent("outside/sentinel")
            try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: sentinel.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.sentinelBytes.write(to: sentinel)
            let destination = downloads.appendingPathComponent("a")
            try Data(repeating: 7, count: 500).write(to: URL(fileURLWithPath: destination.path + ".part"))

            let path = root.appendingPathComponent("store.sqlite").path
            let writer = try await SQLiteDownloadStore(path: path)
            try await writer.save(DownloadRecord(
                id: "a", url: URL(string: "mock://files/a")!, destination: destination, partPath: destination.path + ".part",
                state: [.waiting, .paused, .failed, .interrupted, .completed][index % 5], validator: .entityTag("\"v1\""),
                checkpointedBytes: 500, expectedLength: 4_000, queueOrder: 1))
            await writer.close()

            var changes: [String] = []
            for _ in 0...Int(random.next() % 3) {
                let column = Self.columns[Int(random.next() % UInt64(Self.columns.count))]
                let values = Self.hostileValues(for: column, root: root, sentinel: sentinel)
                changes.append("\(column) = \(values[Int(random.next() % UInt64(values.count))])")
            }
            let update = "UPDATE downloads SET \(changes.joined(separator: ", "));"
            do {
                try RawSQLite.execute(update, at: path)
            } catch {
                continue  // a constraint refused the change: the file cannot hold it
            }

            let clock = ManualClock()
            let mock = MockTransport(clock: clock)
            mock.serve(URL(string: "mock://files/a")!, MockResource(MockContent.seeded(seed: 1, size: 4_000), chunkSize: 1_000))
            var transports = TransportRegistry()
            transports.register(mock, for: "mock")
            var named: [URL] = []
            do {
                let store = try await SQLiteDownloadStore(path: path)
                named = try await store.loadAll().map(\.destination)
                let downloader = Downloader(
                    configuration: DownloaderConfiguration(downloadsDirectory: downloads, jitterSeed: 1),
                    transports: transports, store: store, clock: clock)
                let settled = downloader.events()
                try await downloader.restore()
                let running = await downloader.downloads().filter { $0.state == .waiting || $0.state == .downloading }.map(\.id)
                if !running.isEmpty {
                    var left = Set(running)
                    for await event in settled {
                        if case .stateChanged(let id, let state) = event,
                           [.completed, .failed, .interrupted, .paused, .cancelled].contains(state) {
                            left.remove(id)
                        }
                        if left.isEmpty { break }
                    }
                }
                await downloader.shutdown()
                await store.close()
            } catch let error as DownloadError {
                #expect(!error.message.isEmpty, "#\(index) \(update): an error without a message")
            } catch {
                Issue.record("#\(index) \(update): not a DownloadError: \(error)")
            }
            let sentinelPath = sentinel.standardizedFileURL.path
            if !named.contains(where: { $0.standardizedFileURL.path == sentinelPath }) {
                #expect(FileManager.default.contents(atPath: sentinel.path) == Self.sentinelBytes,
                        "#\(index) \(update) changed a file outside the downloads directory")
            }
        }
    }

    /// SQL literals a damaged or forged row can hold in `column`. The tests run as root and the
    /// code under test writes where a row says: the path columns only ever get absolute paths inside
    /// the sandbox (or NULL), so a run cannot touch anything outside it even when the code trusts a
    /// path it should not.
    static func hostileValues(for column: String, root: URL, sentinel: URL) -> [String] {
        let literal = { (text: String) in "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        let paths = [
            sentinel.path, sentinel.path + ".part", root.path + "/dl/../outside/sentinel", root.path + "/dl",
            root.path + "/dl/", root.path, root.path + "/dl/a/../../outside/sentinel.part",
        ]
        switch column {
        case "part_path":
            return paths.map(literal) + ["NULL"]
        case "destination":
            return (paths.map { URL(fileURLWithPath: $0).absoluteString } + ["file://" + root.path + "/dl/../outside/sentinel"])
                .map(literal) + ["NULL"]
        default:
            let strings = [
                "", ".", "..", "~", "a\u{1}b", "mock://files/a", "gopher://x/y", "completed", "downloading", "paused",
                "bogus", "entityTag", "lastModified", "{}", "{\"priority\":9223372036854775807}", "[]", "[1,2",
                "{\"transfer\":{}}", String(repeating: "x", count: 5_000),
            ]
            return strings.map(literal) + [
                "NULL", "0", "-1", "1", "9223372036854775807", "-9223372036854775808", "4611686018427387904",
                "1e308", "-1e308", "0.5", "X'00FF'", "X''",
            ]
        }
    }
}
