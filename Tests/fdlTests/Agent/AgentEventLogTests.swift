@testable import FileDownloadAgent
import FileDownload
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// The agent's event log when the journal cannot be written for a while.
@Suite("fdl agent: event log write failures")
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
        let journalled = try await log.entries(after: 0, limit: 10).entries.compactMap(\.event).map { String(describing: $0) }
        #expect(journalled == [DownloadEvent.stateChanged(id: "a", state: .downloading),
                               DownloadEvent.stateChanged(id: "b", state: .waiting)].map { String(describing: $0) })
        await store.close()
    }

    private func sqlite(_ path: String, _ sql: String) async throws {
        let (status, _, errors) = try await CommandRun.run(["/usr/bin/sqlite3", path, sql])
        guard status == 0 else { throw TestFailure("sqlite3 \(sql): \(errors)") }
    }
}
