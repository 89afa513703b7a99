@testable import FileDownloadAgent
import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Logging
import Testing

/// The agent's event log when the journal cannot be written for a while, and when it compares a
/// large store with the journal.
@Suite("fdl agent: event log write failures and reconciling")
struct AgentEventLogTests {
    @Test("an event whose journal append failed is journalled with the next one, once, not dropped as a repeat")
    func failedAppendIsKept() async throws {
        let directory = try TemporaryDirectory("eventlog")
        defer { directory.remove() }
        let path = directory.path("agent.sqlite")
        let store = try await SQLiteDownloadStore(path: path)
        let log = try await AgentEventLog(store: store)
        // The next append fails as a full disk would.
        try await sqlite(path, "CREATE TRIGGER fail_once BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'injected failure'); END;")
        await #expect(throws: (any Error).self) {
            try await log.record([.stateChanged(id: "a", state: .downloading)])
        }
        try await sqlite(path, "DROP TRIGGER fail_once;")
        try await log.record([.stateChanged(id: "a", state: .downloading), .stateChanged(id: "b", state: .waiting)])
        let journalled = try await journalled(after: 0, in: log)
        #expect(journalled == [DownloadEvent.stateChanged(id: "a", state: .downloading),
                               DownloadEvent.stateChanged(id: "b", state: .waiting)].map { String(describing: $0) })
        await store.close()
    }

    @Test("after a restart, a state the journal already announced is not announced again, nor the event that describes it")
    func repeatAfterRestartDropped() async throws {
        let directory = try TemporaryDirectory("eventlog")
        defer { directory.remove() }
        let store = try await SQLiteDownloadStore(path: directory.path("agent.sqlite"))
        try await AgentEventLog(store: store).record([.stateChanged(id: "a", state: .paused), .paused(id: "a", resumeData: nil)])
        let start = try await store.journalBounds().last
        // The next start's log knows what was announced from the store alone.
        let log = try await AgentEventLog(store: store)
        try await log.record([.stateChanged(id: "a", state: .paused), .paused(id: "a", resumeData: nil),
                              .stateChanged(id: "a", state: .waiting)])
        let journalled = try await journalled(after: start, in: log)
        #expect(journalled == [String(describing: DownloadEvent.stateChanged(id: "a", state: .waiting))])
        await store.close()
    }

    @Test("after a restart the store is compared with the journal a page at a time: each missed state announced once, events journalled between pages")
    func reconcilesInPages() async throws {
        let directory = try TemporaryDirectory("eventlog")
        defer { directory.remove() }
        let store = try await SQLiteDownloadStore(path: directory.path("agent.sqlite"))
        let file = { (i: Int) in URL(fileURLWithPath: directory.path("d\(i)")) }
        // Seven completed downloads; the journal's last word is `downloading` for all but d6 (as
        // if the agent had died before journalling six completions).
        try await store.saveAll((0..<7).map { i in
            DownloadRecord(id: "d\(i)", url: URL(string: "mock://host/d\(i)")!, destination: file(i),
                           partPath: directory.path("d\(i).part"), state: .completed)
        })
        let encoder = JSONEncoder()
        try await store.appendToJournal(try (0..<7).map { i in
            let state: DownloadState = i == 6 ? .completed : .downloading
            return .init(downloadID: "d\(i)", state: state, payload: try encoder.encode(DownloadEvent.stateChanged(id: "d\(i)", state: state)))
        })
        let start = try await store.journalBounds().last
        let log = try await AgentEventLog(store: store, reconcilePage: 2)
        let downloader = Downloader(transports: TransportRegistry(), store: store)
        _ = try await downloader.restore()

        // Both posted before the pump looks: the first page, then an event. The pump posts each
        // next page behind what is queued, so the event is journalled after the first page.
        let feed = AgentEventFeed()
        feed.post(.reconcile(after: nil))
        feed.post(.event(.stateChanged(id: "x", state: .waiting)))
        let pump = Task { await DownloadAgent.pump(feed, into: log, downloader: downloader, logger: Logger(label: "test")) }
        try await waitForEntries(start + 13, in: log)
        var expected: [DownloadEvent] = []
        for i in 0..<6 {
            if i == 2 { expected.append(.stateChanged(id: "x", state: .waiting)) }
            expected += [.stateChanged(id: "d\(i)", state: .completed), .completed(id: "d\(i)", file: file(i))]
        }
        #expect(try await journalled(after: start, in: log) == expected.map { String(describing: $0) })

        // Compared again (the next start): nothing more is announced before the marker.
        feed.post(.reconcile(after: nil))
        feed.post(.event(.stateChanged(id: "marker", state: .waiting)))
        try await waitForEntries(start + 14, in: log)
        #expect(try await journalled(after: start + 13, in: log)
                == [String(describing: DownloadEvent.stateChanged(id: "marker", state: .waiting))])
        feed.finish()
        await pump.value
        await store.close()
    }

    /// The events `log` journalled after sequence number `sequence`, as text (`DownloadEvent` is
    /// not `Equatable`).
    private func journalled(after sequence: Int64, in log: AgentEventLog) async throws -> [String] {
        try await log.entries(after: sequence, limit: 100).entries.compactMap(\.event).map { String(describing: $0) }
    }

    /// Waits (event-driven, bounded) until the log's last sequence number is at least `sequence`.
    private func waitForEntries(_ sequence: Int64, in log: AgentEventLog) async throws {
        let (token, bell) = await log.subscribe()
        defer { Task { await log.unsubscribe(token) } }
        let waiter = Task {
            if await log.lastSequence >= sequence { return }
            for await _ in bell where await log.lastSequence >= sequence { return }
            throw TestFailure("the log closed before entry \(sequence)")
        }
        try await waiter.value(within: 60, what: "journal entry \(sequence)")
    }

    private func sqlite(_ path: String, _ sql: String) async throws {
        let (status, _, errors) = try await CommandRun.run(["/usr/bin/sqlite3", path, sql])
        guard status == 0 else { throw TestFailure("sqlite3 \(sql): \(errors)") }
    }
}
