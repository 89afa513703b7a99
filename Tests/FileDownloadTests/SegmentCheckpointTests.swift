import FileDownload
import Foundation
import Testing

@Suite("SegmentCheckpoint and the store's segment checkpoints")
struct SegmentCheckpointTests {
    @Test("values are clamped so that a segment never claims bytes outside itself")
    func clamps() {
        let s = SegmentCheckpoint(start: 10, end: 5, done: 3)
        #expect(s.start == 10 && s.end == 10 && s.done == 0 && s.isComplete)
        let t = SegmentCheckpoint(start: -4, end: 100, done: 500)
        #expect(t.start == 0 && t.done == 100 && t.next == 100 && t.remaining == 0)
        let u = SegmentCheckpoint(start: 100, end: 200, done: -1)
        #expect(u.done == 0 && u.next == 100 && u.remaining == 100)
    }

    @Test("decoding clamps too: a stored segment cannot claim more than it covers")
    func decodingClamps() throws {
        let json = Data(#"{"start": 100, "end": 50, "done": 9000}"#.utf8)
        let s = try JSONDecoder().decode(SegmentCheckpoint.self, from: json)
        #expect(s == SegmentCheckpoint(start: 100, end: 100, done: 0))
    }

    @Test("the contiguous prefix stops at the first gap, in any order of segments")
    func contiguousPrefix() {
        let segments = [
            SegmentCheckpoint(start: 300, end: 600, done: 300),
            SegmentCheckpoint(start: 0, end: 100, done: 100),
            SegmentCheckpoint(start: 100, end: 300, done: 50),
        ]
        #expect(segments.contiguousPrefix == 150)
        #expect(segments.bytesDone == 450)
        #expect([SegmentCheckpoint(start: 10, end: 20, done: 10)].contiguousPrefix == 0)
        #expect([SegmentCheckpoint]().contiguousPrefix == 0)
    }

    @Test("a store without segment support keeps the contiguous prefix only")
    func defaultImplementationKeepsPrefix() async throws {
        let store = PrefixOnlyStore()
        try await store.checkpoint(id: "a", segments: [
            SegmentCheckpoint(start: 0, end: 100, done: 100),
            SegmentCheckpoint(start: 100, end: 200, done: 30),
            SegmentCheckpoint(start: 200, end: 300, done: 100),
        ], validator: .entityTag("\"x\""))
        #expect(await store.calls == [130])
    }

    @Test("the in-memory store keeps segments; a single-stream checkpoint clears them")
    func inMemoryStore() async {
        let record = DownloadRecord(id: "a", url: URL(string: "https://example.com/a")!,
                                    destination: URL(fileURLWithPath: "/tmp/a"), partPath: "/tmp/a.part",
                                    state: .interrupted)
        let store = InMemoryDownloadStore(records: [record])
        let segments = [SegmentCheckpoint(start: 0, end: 10, done: 4), SegmentCheckpoint(start: 10, end: 20, done: 6)]
        await store.checkpoint(id: "a", segments: segments, validator: nil)
        #expect(await store.record(for: "a")?.segments == segments)
        #expect(await store.record(for: "a")?.checkpointedBytes == 4)
        #expect(await store.record(for: "a")?.bytesDone == 10)
        await store.checkpoint(id: "a", bytes: 4, validator: nil)
        #expect(await store.record(for: "a")?.segments == [])
        #expect(await store.checkpointCount == 2)
    }

    @Test("a record written before segments existed decodes with none")
    func oldRecordDecodes() throws {
        let record = DownloadRecord(id: "a", url: URL(string: "https://example.com/a")!,
                                    destination: URL(fileURLWithPath: "/tmp/a"), partPath: "/tmp/a.part",
                                    state: .waiting, segments: [SegmentCheckpoint(start: 0, end: 5, done: 1)])
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? [String: Any])
        #expect(object["segments"] != nil)
        object["segments"] = nil
        let old = try JSONDecoder().decode(DownloadRecord.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(old.segments.isEmpty && old.id == "a" && old.state == .waiting)
    }
}

/// A store that implements only the single-stream checkpoint, as stores written before segments do.
private actor PrefixOnlyStore: DownloadStore {
    private(set) var calls: [Int64] = []
    func loadAll() -> [DownloadRecord] { [] }
    func save(_ record: DownloadRecord) {}
    func checkpoint(id: String, bytes: Int64, validator: Validator?) { calls.append(bytes) }
    func remove(id: String) {}
}
