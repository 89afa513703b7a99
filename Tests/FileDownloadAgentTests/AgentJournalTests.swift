import FileDownload
import FileDownloadAgentClient
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// The agent's journal across stops: what it missed is announced once, what it pruned is reported.
@Suite("fdl agent: event journal", .serialized)
struct AgentJournalTests {
    @Test("a change the store saved and the journal missed (the agent died between the two) is announced once at the next start")
    func reconcilesMissedChange() async throws {
        try await NginxServer.withServer { nginx, _ in
            let agent = try AgentFixture()
            defer { agent.directory.remove() }
            try await agent.start()
            let data = try nginx.serve("f.bin", sampleBytes(50_000))
            try await agent.client.start(id: "f", url: URL(string: nginx.url("f.bin"))!, destination: agent.downloads.appending(path: "f.bin"))
            try await agent.waitUntil("f completes") { $0.first?.state == .completed }
            #expect(await agent.stop() == 0)
            // As if the agent had died after the store saved `completed` and before the journal
            // appended it: the journal's last word on `f` is `downloading`.
            let store = try await SQLiteDownloadStore(path: agent.state + "/agent.sqlite")
            let before = try await store.journalBounds().last
            let payload = try JSONEncoder().encode(DownloadEvent.stateChanged(id: "f", state: .downloading))
            try await store.appendToJournal([.init(downloadID: "f", state: .downloading, payload: payload)])
            await store.close()

            for restart in 1...2 {
                try await agent.start()
                try await agent.client.add(id: "end\(restart)", url: URL(string: nginx.url("none"))!,
                                           destination: agent.downloads.appending(path: "end\(restart)"))
                let events = try await agent.events(since: before + 1) { seen in
                    seen.contains { if case .stateChanged("end\(restart)", .notStarted) = $0.event { true } else { false } }
                }
                let aboutF = events.filter { $0.event.id == "f" }.map { String(describing: $0.event) }
                #expect(aboutF == [String(describing: DownloadEvent.stateChanged(id: "f", state: .completed)),
                                   String(describing: DownloadEvent.completed(id: "f", file: agent.downloads.appending(path: "f.bin")))],
                        "restart \(restart): announced once, and not again at the next start")
                #expect(await agent.stop() == 0)
            }
            #expect(try Data(contentsOf: agent.downloads.appending(path: "f.bin")) == data)
        }
    }

    @Test("a client whose events were pruned from the journal is told so, and told where to go on")
    func prunedEventsReported() async throws {
        try await AgentFixture.with(journalCapacity: 5) { agent in
            for i in 1...8 {
                try await agent.client.add(id: "d\(i)", url: URL(string: "http://127.0.0.1:9/d\(i)")!,
                                           destination: agent.downloads.appending(path: "d\(i)"))
            }
            let (_, health) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/health"])
            #expect(health.contains("\"lastEventSequence\":8"), "\(health)")
            for since: Int64 in [0, 1, 99] {
                let error = await #expect(throws: DownloadAgentClientError.self) {
                    _ = try await agent.events(since: since) { _ in false }
                }
                #expect(error?.error == "events-missed", "since \(since)")
            }
            // From the oldest kept (4, so after 3) nothing is missing.
            let kept = try await agent.events(since: 3) { $0.count == 5 }
            #expect(kept.compactMap(\.sequence) == [4, 5, 6, 7, 8])
        }
    }
}
