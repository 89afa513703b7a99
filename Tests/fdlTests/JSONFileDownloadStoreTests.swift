import FileDownload
@testable import FileDownloadCLI
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct JSONFileDownloadStoreTests {
    func record(_ id: String, order: Int64) -> DownloadRecord {
        DownloadRecord(id: id, url: URL(string: "https://user:pw@h/\(id)")!, destination: URL(fileURLWithPath: "/d/\(id)"),
                       partPath: "/d/\(id).part", state: .downloading, queueOrder: order)
    }

    @Test func recordsSurviveReopeningInQueueOrder() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("state.json").path
        let store = try JSONFileDownloadStore(path: path)
        try await store.save(record("b", order: 2))
        try await store.save(record("a", order: 1))
        try await store.checkpoint(id: "a", bytes: 42, validator: .entityTag("\"v1\""))
        try await store.remove(id: "b")
        let reopened = try JSONFileDownloadStore(path: path)
        let all = await reopened.loadAll()
        #expect(all.map(\.id) == ["a"])
        #expect(all.first?.checkpointedBytes == 42)
        #expect(all.first?.validator == .entityTag("\"v1\""))
    }

    @Test func noPasswordReachesTheFileAndNoTemporaryFileIsLeft() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("state.json").path
        var r = record("a", order: 0)
        r.options.transfer.headers = [HeaderField(name: "Authorization", value: "Bearer s3cret"),
                                      HeaderField(name: "X-Plain", value: "visible")]
        r = DownloadRecord(id: r.id, url: r.url, destination: r.destination, partPath: r.partPath, state: r.state,
                           options: r.options)
        try await JSONFileDownloadStore(path: path).save(r)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("pw@"))
        #expect(!text.contains("s3cret"))
        #expect(text.contains("visible"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["state.json"])
    }

    @Test func aCorruptFileIsAClearErrorAndIsLeftAlone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("state.json").path
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try JSONFileDownloadStore(path: path)
        } throws: { error in
            (error as? DownloadError)?.code == .store && "\(error)".contains("move it away")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{ not json")
    }

    @Test func checkpointsAreReportedAfterTheyAreWritten() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("state.json").path
        let seen = Mutex<[Int64]>([])
        let store = try JSONFileDownloadStore(path: path) { _, bytes in
            let onDisk = (try? JSONFileDownloadStore.read(path: path))?["a"]?.checkpointedBytes
            seen.withLock { $0.append(onDisk == bytes ? bytes : -1) }
        }
        try await store.save(record("a", order: 0))
        try await store.checkpoint(id: "a", bytes: 7, validator: nil)
        try await store.checkpoint(id: "unknown", bytes: 9, validator: nil)
        #expect(seen.withLock { $0 } == [7])
    }
}
