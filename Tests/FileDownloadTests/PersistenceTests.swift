@testable import FileDownload
import FileDownloadTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// The persistence part on its own: what reaches the store, and in which order with the events,
/// through the journal. No downloader: entries and a store that logs each write.
@Suite("Persistence: store writes and events in order")
struct PersistenceTests {
    /// One log of the store's writes and the events published, in the order they happened.
    final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A store that logs every write in `log`.
    actor LoggingStore: DownloadStore {
        let log: Log
        var records: [String: DownloadRecord] = [:]
        init(log: Log) { self.log = log }

        func loadAll() -> [DownloadRecord] { Array(records.values) }
        func save(_ record: DownloadRecord) {
            log.append("save \(record.id) \(record.state)")
            records[record.id] = record
        }
        func saveAll(_ records: [DownloadRecord]) {
            log.append("saveAll " + records.map { "\($0.id) \($0.state)" }.joined(separator: ", "))
            for record in records { self.records[record.id] = record }
        }
        func checkpoint(id: String, bytes: Int64, validator: Validator?) {
            log.append("checkpoint \(id) \(bytes)")
        }
        func checkpoint(id: String, segments: [SegmentCheckpoint], validator: Validator?) {
            log.append("checkpoint \(id) \(segments.count) segments")
        }
        func remove(id: String) {
            log.append("remove \(id)")
            records[id] = nil
        }
    }

    func entry(_ id: String, _ state: DownloadState) -> DownloadEntry {
        let destination = URL(fileURLWithPath: "/tmp/fdl-persistence/\(id)")
        return DownloadEntry(record: DownloadRecord(id: id, url: URL(string: "mock://files/\(id)")!,
                                                    destination: destination, partPath: destination.path + ".part",
                                                    state: state))
    }

    /// A persistence part over `store` whose events are logged in `log`.
    func persistence(_ store: (any DownloadStore)?, _ log: Log) -> Persistence {
        let hub = EventHub(delegate: nil)
        hub.observe { event in
            switch event {
            case .stateChanged(let id, let state): log.append("event \(id) \(state)")
            case .removed(let id): log.append("event \(id) removed")
            default: log.append("event \(event)")
            }
        }
        return Persistence(store: store, hub: hub, logger: Logger(label: "test"))
    }

    @Test("each save reaches the store before its events; a removal reaches it before `removed`; order is kept")
    func writesThenEventsInOrder() async {
        let log = Log()
        let store = LoggingStore(log: log)
        let part = persistence(store, log)
        let a = entry("a", .waiting), b = entry("b", .paused)
        part.save(a, flush: nil, events: [.stateChanged(id: "a", state: .waiting)])
        part.save(b, flush: nil, events: [.stateChanged(id: "b", state: .paused)])
        part.remove("a")
        part.publish([.stateChanged(id: "b", state: .paused)])
        await part.drain()
        let lines = log.all
        // Saves that queued up together may go as one saveAll: the records, then their events.
        let saved = lines.filter { $0.hasPrefix("save") }.flatMap { line in
            line.drop(while: { $0 != " " }).dropFirst().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(saved == ["a waiting", "b paused"])
        func at(_ line: String) -> Int { lines.firstIndex(of: line) ?? -1 }
        func savedAt(_ record: String) -> Int { lines.firstIndex { $0.hasPrefix("save") && $0.contains(record) } ?? -1 }
        #expect(savedAt("a waiting") < at("event a waiting"))
        #expect(savedAt("b paused") < at("event b paused"))
        #expect(at("event a waiting") < at("event b paused"))
        #expect(at("event b paused") < at("remove a"))
        #expect(at("remove a") < at("event a removed"))
        #expect(lines.last == "event b paused", "an event posted last is published last")
        let kept = await store.records
        #expect(kept["a"] == nil && kept["b"]?.state == .paused)
        await part.finish()
    }

    @Test("without a store only the events go through, and checkpoints write nothing")
    func withoutAStore() async throws {
        let log = Log()
        let part = persistence(nil, log)
        #expect(!part.save(entry("a", .waiting), flush: nil, events: [.stateChanged(id: "a", state: .waiting)]))
        part.remove("a")
        await part.drain()
        #expect(log.all == ["event a waiting", "event a removed"])
        #expect(try await part.record("a", afterWrites: true) == nil)
        await part.finish()
    }

    @Test("a read asked after the writes sees them")
    func readsAfterWrites() async throws {
        let log = Log()
        let part = persistence(InMemoryDownloadStore(pagesWaitingDownloads: true), log)
        part.save(entry("w", .waiting), flush: nil, events: [])
        #expect(try await part.record("w", afterWrites: true)?.state == .waiting)
        #expect(try await part.unfinishedOwner(destination: "/tmp/fdl-persistence/w", partPath: "/tmp/x.part") == "w")
        part.remove("w")
        #expect(try await part.record("w", afterWrites: true) == nil)
        await part.finish()
    }

    @Test("restore reads every record, or with a paging store neither the waiting nor the finished ones")
    func loadForRestore() async throws {
        var records = ["w": DownloadState.waiting, "c": .completed, "x": .cancelled, "p": .paused, "i": .interrupted,
                       "z": .waiting]
            .map { id, state in entry(id, state).record() }
        for index in records.indices where records[index].id == "w" { records[index].checkpointedBytes = 100 }
        let plain = persistence(InMemoryDownloadStore(records: records), Log())
        #expect(Set(try await plain.loadForRestore().records.map(\.id)) == ["w", "c", "x", "p", "i", "z"])
        let paging = persistence(InMemoryDownloadStore(records: records, pagesWaitingDownloads: true), Log())
        let stored = try await paging.loadForRestore()
        #expect(Set(stored.records.map(\.id)) == ["p", "i"])
        #expect(stored.waitingPartPaths == ["/tmp/fdl-persistence/w.part"], "the waiting ones with bytes to continue")
        await plain.finish()
        await paging.finish()
    }

    @Test("a waiting download may leave memory only when the store holds all of it")
    func storeHoldsAll() {
        var e = entry("a", .waiting)
        #expect(Persistence.storeHoldsAll(of: e))
        e.retriesUsed = 1
        #expect(!Persistence.storeHoldsAll(of: e), "retries counted live only in memory")
        e = entry("a", .waiting)
        e.url = URL(string: "mock://user:secret@files/a")!
        #expect(!Persistence.storeHoldsAll(of: e), "the store keeps no secret")
    }

    /// A store whose remembered connection counts cannot be read.
    actor UnreadableHostsStore: DownloadStore {
        func loadAll() -> [DownloadRecord] { [] }
        func save(_ record: DownloadRecord) {}
        func checkpoint(id: String, bytes: Int64, validator: Validator?) {}
        func remove(id: String) {}
        func rememberedConnections() throws -> [String: Int] {
            throw DownloadError(.fileSystem, "the table is locked")
        }
    }

    @Test("a store that cannot read the remembered connection counts is a warning, and every origin starts afresh")
    func unreadableRememberedConnectionsAreAWarning() async {
        let capture = LogCapture()
        let part = Persistence(store: UnreadableHostsStore(), hub: EventHub(delegate: nil), logger: capture.logger)
        #expect(await part.rememberedConnections().isEmpty)
        #expect(capture.all.contains { $0.message.contains("remembered connections") && ($0.metadata["error"] ?? "").contains("locked") })
    }
}
