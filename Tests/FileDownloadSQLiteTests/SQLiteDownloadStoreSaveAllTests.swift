import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

@Suite("SQLiteDownloadStore: saveAll")
struct SQLiteDownloadStoreSaveAllTests {
    @Test("saveAll stores every record as save would, in order, without secrets, and later ones replace earlier ones")
    func savesLikeSave() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        var a = DownloadRecord.sample(id: "a", queueOrder: 1)
        let b = DownloadRecord.sample(id: "b", queueOrder: 2)
        var secret = DownloadRecord.sample(id: "c", queueOrder: 3)
        secret.options.transfer.headers = [HeaderField(name: "Authorization", value: "Bearer saveAll-secret")]
        var later = a
        later.state = .completed
        try await store.saveAll([a, b, secret, later])
        a = later
        let loaded = try await store.loadAll()
        #expect(loaded.map(\.id) == ["a", "b", "c"])
        #expect(loaded.first == a)
        #expect(loaded[1] == b)
        #expect(!loaded[2].options.transfer.headers.contains { $0.value.contains("saveAll-secret") })
        try await store.saveAll([])
        #expect(try await store.loadAll().count == 3)
    }

    @Test("a closed store throws and saves none")
    func closedStoreSavesNone() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        await store.close()
        await #expect(throws: DownloadError.self) {
            try await store.saveAll([.sample(id: "a"), .sample(id: "b")])
        }
        let reopened = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        #expect(try await reopened.loadAll().isEmpty)
    }

    @Test("a batch that fails part-way saves none of it, also when called on the concrete store type")
    func failedBatchSavesNone() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        await (try await SQLiteDownloadStore(path: path)).close()
        // The second row of the batch is refused by the database itself.
        try RawSQLite.execute("""
            CREATE TRIGGER refuse_b BEFORE INSERT ON downloads WHEN NEW.id = 'b'
            BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;
            """, at: path)
        let store = try await SQLiteDownloadStore(path: path)
        await #expect(throws: DownloadError.self) {
            try await store.saveAll([.sample(id: "a"), .sample(id: "b")])
        }
        #expect(try await store.loadAll().isEmpty)
    }
}
