import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// The paging queries of the SQLite store (schema version 4 and 5 indexes) against what `loadAll()`
/// says, and the migration of older files (every record kept, the priority column filled).
@Suite("SQLite store paging and its migration")
struct SQLitePagingTests {
    static let states: [DownloadState] = [.waiting, .waiting, .waiting, .paused, .completed, .failed, .interrupted]

    /// 700 records of mixed states and priorities, saved out of queue order.
    static func records() -> [DownloadRecord] {
        (0..<700).map { i in
            var r = DownloadRecord.sample(id: "r\(i)", queueOrder: Int64((i * 37) % 700), state: states[i % states.count])
            r.options.priority = [0, 5, -2, 0][i % 4]
            r.checkpointedBytes = i % 5 == 0 ? 0 : Int64(i)
            // Some fetched in segments whose prefix is still 0 (bytes only in a later segment).
            if i % 10 == 0 { r.segments = [SegmentCheckpoint(start: 0, end: 100, done: 0), SegmentCheckpoint(start: 100, end: 200, done: 50)] }
            return r
        }
    }

    @Test("next waiting, pages, counts and staging paths answer as loadAll() does")
    func queriesMatchLoadAll() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        try await store.saveAll(Self.records().shuffled())
        let all = try await store.loadAll()
        #expect(all.count == 700)
        #expect(store.pagesWaitingDownloads)

        let waiting = all.filter { $0.state == .waiting }.sorted { $0.runs(before: $1) }
        #expect(try await store.nextWaiting(limit: 50).map(\.id) == waiting.prefix(50).map(\.id))
        #expect(try await store.nextWaiting(limit: 10_000).map(\.id) == waiting.map(\.id))
        #expect(try await store.nextWaiting(limit: 50).first == waiting.first)

        var counts: [DownloadState: Int] = [:]
        for r in all { counts[r.state, default: 0] += 1 }
        #expect(try await store.countsByState() == counts)

        for states in [nil, Set([DownloadState.paused, .failed])] as [Set<DownloadState>?] {
            let matching = all.filter { states?.contains($0.state) ?? true }
            var listed: [String] = []
            var after: Int64?
            repeat {
                let page = try await store.page(in: states, after: after, limit: 33)
                listed += page.map(\.id)
                after = page.count == 33 ? page.last?.queueOrder : nil
            } while after != nil
            #expect(listed == matching.map(\.id))
        }

        for excluded in [[.waiting], [.waiting, .completed, .cancelled], Set(DownloadState.allCases)] as [Set<DownloadState>] {
            #expect(try await store.loadAll(excluding: excluded) == all.filter { !excluded.contains($0.state) })
        }
        #expect(try await store.lastQueueOrder() == all.map(\.queueOrder).max())
        #expect(try await store.record(id: "r42") == all.first { $0.id == "r42" })
        #expect(try await store.record(id: "nobody") == nil)
        let partPaths = Set(all.filter { $0.state == .waiting && ($0.checkpointedBytes > 0 || !$0.segments.isEmpty) }.map(\.partPath))
        #expect(all.contains { $0.state == .waiting && $0.checkpointedBytes == 0 && !$0.segments.isEmpty })
        #expect(try await store.waitingPartPaths() == partPaths)
    }

    @Test("the unfinished owner of a destination or staging path answers as loadAll() does")
    func unfinishedOwnerMatchesLoadAll() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        let records = Self.records()
        try await store.saveAll(records)
        for r in records.prefix(60) {
            let cases = [(r.destination.path, r.partPath), (r.partPath, r.partPath + ".part"),
                         (r.destination.path + "x", r.partPath + "x")]
            for (destination, partPath) in cases {
                let native = try await store.unfinishedOwner(destination: destination, partPath: partPath)
                let expected = records.first { record in
                    !record.state.isTerminal
                        && !Set([destination, partPath]).isDisjoint(with: [record.destination.path, record.partPath])
                }?.id
                #expect(native == expected, "\(destination)")
                #expect(native == (r.state.isTerminal || destination.hasSuffix("x") ? nil : r.id), "\(destination)")
            }
        }
    }

    @Test("a version 2 or 3 store migrates: every record kept, the waiting order follows the stored priorities",
          arguments: [2, 3])
    func fromOlderVersion(version: Int) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path("v\(version).sqlite")
        try RawSQLite.execute(FrozenSchema.version1 + FrozenSchema.version2Additions + """
            INSERT INTO downloads VALUES ('low', 'https://example.com/low', 'file:///tmp/low', '/tmp/low.part',
                'waiting', NULL, NULL, NULL, 0, NULL, '{"priority":0,"transfer":{}}', 1, NULL, '[]', 0, 1, 1);
            INSERT INTO downloads VALUES ('high', 'https://example.com/high', 'file:///tmp/high', '/tmp/high.part',
                'waiting', 'etag', '"h"', 1, 10, 100, '{"priority":7,"transfer":{}}', 2, NULL, '[]', 1, 2, 2);
            INSERT INTO downloads VALUES ('done', 'https://example.com/done', 'file:///tmp/done', '/tmp/done.part',
                'completed', NULL, NULL, NULL, 5, 5, '{"priority":9,"transfer":{}}', 0, NULL, '[]', 1, 3, 3);
            INSERT INTO journal_states VALUES ('low', 'waiting'), ('high', 'waiting'), ('done', 'completed');
            """ + (version == 3 ? FrozenSchema.version3Additions + """
            UPDATE downloads SET segments = '[{"done":10,"end":100,"start":0}]' WHERE id = 'high';
            """ : "") + """
            PRAGMA user_version = \(version);
            """, at: path)
        let store = try await SQLiteDownloadStore(path: path)
        let records = try await store.loadAll()
        #expect(records.map(\.id) == ["done", "low", "high"])
        #expect(records.map(\.options.priority) == [9, 0, 7])
        #expect(records[2].validator == .entityTag("\"h\"") && records[2].checkpointedBytes == 10)
        #expect(records[2].segments == (version == 3 ? [SegmentCheckpoint(start: 0, end: 100, done: 10)] : []))
        #expect(try await store.nextWaiting(limit: 10).map(\.id) == ["high", "low"])
        #expect(try await store.countsByState() == [.waiting: 2, .completed: 1])
        #expect(try await store.waitingPartPaths() == ["/tmp/high.part"])
        #expect(try RawSQLite.integer("PRAGMA user_version", at: path) == 8)
    }
}
