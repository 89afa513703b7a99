import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// The event journal kept beside the downloads: numbered, bounded, durable across reopening.
@Suite("SQLiteDownloadStore: event journal")
struct SQLiteJournalTests {
    private func event(_ id: String, _ text: String, state: DownloadState? = nil) -> SQLiteDownloadStore.JournalEvent {
        SQLiteDownloadStore.JournalEvent(downloadID: id, state: state, payload: Data(text.utf8))
    }

    @Test("entries get increasing sequence numbers and read back in order, from any point")
    func appendAndRead() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        let first = try await store.appendToJournal([event("a", "one", state: .waiting), event("a", "two")])
        let second = try await store.appendToJournal([event("b", "three", state: .completed)])
        #expect(first == [1, 2] && second == [3])
        let all = try await store.journal(after: 0)
        #expect(all.map(\.sequence) == [1, 2, 3])
        #expect(all.map { String(decoding: $0.payload, as: UTF8.self) } == ["one", "two", "three"])
        #expect(all.map(\.state) == [.waiting, nil, .completed] && all.map(\.downloadID) == ["a", "a", "b"])
        #expect(try await store.journal(after: 2).map(\.sequence) == [3])
        #expect(try await store.journal(after: 0, limit: 2).map(\.sequence) == [1, 2])
        #expect(try await store.journal(after: 3).isEmpty)
        #expect(try await store.journalledStates(of: ["a", "b", "c"]) == ["a": .waiting, "b": .completed])
    }

    @Test("the journal keeps its capacity's newest entries, and never gives a number twice, even after reopening")
    func boundedAndMonotonic() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        var store = try await SQLiteDownloadStore(path: path, configuration: .init(journalCapacity: 5))
        for i in 1...12 { try await store.appendToJournal([event("a", "e\(i)")]) }
        #expect(try await store.journalBounds() == .init(oldest: 8, last: 12))
        #expect(try await store.journal(after: 0).map(\.sequence) == [8, 9, 10, 11, 12])
        await store.close()
        store = try await SQLiteDownloadStore(path: path, configuration: .init(journalCapacity: 5))
        #expect(try await store.appendToJournal([event("a", "e13")]) == [13])
        #expect(try await store.journalBounds() == .init(oldest: 9, last: 13))
    }

    @Test("the announced state of each download outlives pruning and reopening, until forgotten")
    func announcedStates() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        var store = try await SQLiteDownloadStore(path: path, configuration: .init(journalCapacity: 1))
        try await store.appendToJournal([event("a", "x", state: .completed), event("b", "y", state: .paused)])
        try await store.appendToJournal([event("b", "z", state: .downloading)])
        await store.close()
        store = try await SQLiteDownloadStore(path: path)
        #expect(try await store.journalledStates(of: ["a", "b"]) == ["a": .completed, "b": .downloading])
        try await store.forgetJournalledState(of: "a")
        #expect(try await store.journalledStates(of: ["a", "b"]) == ["b": .downloading])
    }

    @Test("the downloads saved before a date that the journal has not announced in their stored state come a page at a time, in id order, to the end")
    func unannouncedInPages() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try await SQLiteDownloadStore(path: dir.path("s.sqlite"))
        let states: [DownloadState] = [.completed, .waiting, .paused, .failed, .cancelled, .interrupted, .waiting]
        let started = Date()
        try await store.saveAll((0..<7).map { i in
            var record = DownloadRecord.sample(id: "d\(i)", queueOrder: Int64(i), state: states[i])
            // d4 and d5 were saved by the caller itself, after it started.
            record.updatedAt = i == 4 || i == 5 ? started.addingTimeInterval(1) : started.addingTimeInterval(-60)
            return record
        })
        // d0, d1, d4: announced as stored; d2 and d5: announced in another state; d3, d6: never.
        try await store.appendToJournal([
            event("d0", "", state: .completed), event("d1", "", state: .waiting), event("d2", "", state: .downloading),
            event("d4", "", state: .cancelled), event("d5", "", state: .downloading), event("gone", "", state: .waiting),
        ])
        var pages: [SQLiteDownloadStore.UnannouncedPage] = []
        var after: String?
        repeat {
            let page = try await store.unannounced(after: after, savedBefore: started, limit: 3)
            pages.append(page)
            after = page.resumeAfter
        } while after != nil && pages.count < 10
        // d5 differs but is the caller's own change: looked at, not returned.
        #expect(pages == [.init(ids: ["d2"], resumeAfter: "d2"), .init(ids: ["d3"], resumeAfter: "d5"),
                          .init(ids: ["d6"], resumeAfter: nil)])
        #expect(try await store.unannounced(after: nil, savedBefore: .distantFuture, limit: 100)
                == .init(ids: ["d2", "d3", "d5", "d6"], resumeAfter: nil))
        #expect(try await store.unannounced(after: "d6", savedBefore: .distantFuture, limit: 100) == .init(ids: [], resumeAfter: nil))
    }
}
