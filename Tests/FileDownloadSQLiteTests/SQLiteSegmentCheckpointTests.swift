import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing
@testable import FileDownloadSQLite

@Suite("SQLiteDownloadStore: segment checkpoints")
struct SQLiteSegmentCheckpointTests {
    static let segments = [
        SegmentCheckpoint(start: 0, end: 100, done: 100),
        SegmentCheckpoint(start: 100, end: 400, done: 250),
        SegmentCheckpoint(start: 400, end: 1000, done: 17),
    ]

    @Test("segments come back as checkpointed, after a reopen too; the checkpointed bytes are their contiguous prefix")
    func segmentsRoundTrip() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        try await store.save(DownloadRecord.sample(id: "a", queueOrder: 1))
        try await store.save(DownloadRecord.sample(id: "b", queueOrder: 2))
        try await store.checkpoint(id: "a", segments: Self.segments, validator: .entityTag("\"v2\""))
        try await store.checkpoint(id: "nobody", segments: Self.segments, validator: nil)
        await store.close()

        let reopened = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        let loaded = try await reopened.loadAll()
        #expect(loaded.map(\.id) == ["a", "b"])
        #expect(loaded[0].segments == Self.segments)
        #expect(loaded[0].checkpointedBytes == 350)
        #expect(loaded[0].bytesDone == 367)
        #expect(loaded[0].validator == .entityTag("\"v2\""))
        #expect(loaded[1].segments.isEmpty)
    }

    @Test("a checkpoint of one stream clears the segments; a saved record keeps its own")
    func singleStreamClearsSegments() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        var record = DownloadRecord.sample(id: "a")
        record.segments = Self.segments
        try await store.save(record)
        #expect(try await store.loadAll().first?.segments == Self.segments)
        try await store.checkpoint(id: "a", bytes: 500, validator: nil)
        let loaded = try #require(try await store.loadAll().first)
        #expect(loaded.segments.isEmpty && loaded.checkpointedBytes == 500)
    }
}
