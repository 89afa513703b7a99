import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing
@testable import FileDownloadSQLite

@Suite("SQLiteDownloadStore: reading and writing")
struct SQLiteDownloadStoreTests {
    @Test("every field of a record comes back as it was saved, after a reopen too")
    func roundTrip() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let record = DownloadRecord.sample(id: "a")
        var bare = DownloadRecord(id: "b", url: URL(string: "sftp://host/b")!,
                                  destination: URL(fileURLWithPath: "/tmp/b"), partPath: "/tmp/b.part",
                                  state: .waiting)
        bare.createdAt = Date(timeIntervalSinceReferenceDate: 1)
        bare.updatedAt = Date(timeIntervalSinceReferenceDate: 2)

        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        try await store.save(record)
        try await store.save(bare)
        #expect(try await store.loadAll() == [bare, record]) // bare has queueOrder 0
        await store.close()

        let reopened = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        #expect(try await reopened.loadAll() == [bare, record])
    }

    @Test("save replaces the record with the same id")
    func saveReplaces() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        var record = DownloadRecord.sample(id: "a")
        try await store.save(record)
        record.state = .completed
        record.validator = nil
        record.errorCode = nil
        record.errorMessages = []
        try await store.save(record)
        #expect(try await store.loadAll() == [record])
    }

    @Test("checkpoint updates bytes, validator and updatedAt of one record only; unknown ids are ignored")
    func checkpoint() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        let a = DownloadRecord.sample(id: "a", queueOrder: 1)
        let b = DownloadRecord.sample(id: "b", queueOrder: 2)
        try await store.save(a)
        try await store.save(b)
        let before = Date()
        try await store.checkpoint(id: "a", bytes: 42, validator: .lastModified("Tue, 15 Nov 1994 08:12:31 GMT"))
        try await store.checkpoint(id: "nobody", bytes: 1, validator: nil)
        let loaded = try await store.loadAll()
        #expect(loaded.count == 2)
        #expect(loaded[0].checkpointedBytes == 42)
        #expect(loaded[0].validator == .lastModified("Tue, 15 Nov 1994 08:12:31 GMT"))
        #expect(loaded[0].updatedAt >= before)
        var expectedA = a
        expectedA.checkpointedBytes = 42
        expectedA.validator = loaded[0].validator
        expectedA.updatedAt = loaded[0].updatedAt
        #expect(loaded[0] == expectedA)
        #expect(loaded[1] == b)

        try await store.checkpoint(id: "a", bytes: 43, validator: nil)
        #expect(try await store.loadAll()[0].validator == nil)
    }

    @Test("remove forgets one record; removing an unknown id does nothing")
    func remove() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        for id in ["a", "b", "c"] { try await store.save(.sample(id: id)) }
        try await store.remove(id: "b")
        try await store.remove(id: "zzz")
        #expect(try await store.loadAll().map(\.id) == ["a", "c"])
    }

    @Test("loadAll returns records by queue order, then id, whatever order they were saved in")
    func order() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        let orders: [(String, Int64)] = [("e", 5), ("a", 9), ("d", -2), ("c", 5), ("b", 0), ("f", Int64.max)]
        for (id, order) in orders { try await store.save(.sample(id: id, queueOrder: order)) }
        #expect(try await store.loadAll().map(\.id) == ["d", "b", "c", "e", "a", "f"])
        // Same order as the in-memory store.
        let memory = InMemoryDownloadStore()
        for (id, order) in orders { await memory.save(.sample(id: id, queueOrder: order)) }
        #expect(try await store.loadAll() == (await memory.loadAll()))
    }

    @Test("a closed store throws a store error; a new store on the same file sees everything")
    func reopenAfterClose() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        let store = try await SQLiteDownloadStore(path: path)
        for i in 0..<50 { try await store.save(.sample(id: "r\(i)", queueOrder: Int64(i))) }
        try await store.checkpoint(id: "r7", bytes: 7, validator: nil)
        await store.close()
        await store.close() // twice is fine
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "close folds the WAL into the file")
        let error = await #expect(throws: DownloadError.self) { try await store.save(.sample(id: "late")) }
        #expect(error?.code == .store)
        #expect(error?.description.contains("closed") == true)

        let reopened = try await SQLiteDownloadStore(path: path)
        let loaded = try await reopened.loadAll()
        #expect(loaded.map(\.id) == (0..<50).map { "r\($0)" })
        #expect(loaded[7].checkpointedBytes == 7)
    }

    @Test("a store released without close keeps what was saved")
    func releasedWithoutClose() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        do {
            let store = try await SQLiteDownloadStore(path: path, configuration: .init(durability: .processCrash))
            try await store.save(.sample(id: "kept"))
        }
        let reopened = try await SQLiteDownloadStore(path: path)
        #expect(try await reopened.loadAll().map(\.id) == ["kept"])
    }

    @Test("two stores on the same file (as two processes would) see each other's writes")
    func twoConnections() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let first = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        let second = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        try await first.save(.sample(id: "one", queueOrder: 1))
        try await second.save(.sample(id: "two", queueOrder: 2))
        #expect(try await first.loadAll().map(\.id) == ["one", "two"])
        #expect(try await second.loadAll().map(\.id) == ["one", "two"])
    }

    @Test("many tasks saving, checkpointing and removing at once lose nothing")
    func concurrentCallers() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"),
                                                  configuration: .init(durability: .processCrash))
        let tasks = 40, perTask = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<tasks {
                group.addTask {
                    for i in 0..<perTask {
                        let id = "t\(t)-\(i)"
                        try await store.save(.sample(id: id, queueOrder: Int64(t * perTask + i)))
                        try await store.checkpoint(id: id, bytes: Int64(t * 1000 + i), validator: nil)
                        if i % 5 == 4 { try await store.remove(id: id) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let loaded = try await store.loadAll()
        #expect(loaded.count == tasks * perTask * 4 / 5)
        for record in loaded {
            let parts = record.id.dropFirst().split(separator: "-").compactMap { Int($0) }
            #expect(record.checkpointedBytes == Int64(parts[0] * 1000 + parts[1]))
            #expect(parts[1] % 5 != 4)
        }
        #expect(loaded.map(\.queueOrder) == loaded.map(\.queueOrder).sorted())
    }

    @Test("SQLite runs on the store's own thread, not on the caller's")
    func ownThread() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        #expect(await store.runsOnOwnThread())
    }
}

@Suite("SQLiteDownloadStore: every state")
struct SQLiteDownloadStoreStateTests {
    @Test("each download state is stored and read back", arguments: DownloadState.allCases)
    func state(_ state: DownloadState) async throws {
        let dir = try TemporaryDirectory("state\(state)")
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        try await store.save(.sample(id: "x", state: state))
        #expect(try await store.loadAll().first?.state == state)
    }
}
