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
        #expect(try await store.journalledStates() == ["a": .waiting, "b": .completed])
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
        #expect(try await store.journalledStates() == ["a": .completed, "b": .downloading])
        try await store.forgetJournalledState(of: "a")
        #expect(try await store.journalledStates() == ["b": .downloading])
    }
}
