import FileDownload
import FileDownloadAgentClient
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// A client that follows the events "from the present" keeps its place across agent restarts.
@Suite("fdl agent: following from the present")
struct AgentEventCursorTests {
    @Test("a client following from the present (since: nil) keeps its place across a restart and gets what the restart journals, once")
    func presentCursorSurvivesRestart() async throws {
        try await NginxServer.withServer { nginx, _ in
            try await AgentFixture.with { agent in
                _ = try nginx.serve("f.bin", sampleBytes(50_000))
                try await agent.client.start(id: "f", url: URL(string: nginx.url("f.bin"))!, destination: agent.downloads.appending(path: "f.bin"))
                _ = try await agent.events(since: 0) { seen in
                    seen.contains { if case .completed("f", _) = $0.event { true } else { false } }
                }

                // The stream read above is counted until the agent's next write to it notices that
                // its client left. Only once it is gone does a count of 1 mean that the follower
                // holds its place ("the present", from the stream's `ready`) before the agent stops;
                // otherwise the agent may stop before the follower connected, and the follower's
                // first connection then asks the restarted agent for its present, after the events
                // this test expects.
                try await agent.waitForEventStreams("the stream read above is released") { $0 == 0 }
                let follower = Task {
                    try await agent.events(since: nil, seconds: 300) { seen in
                        seen.contains { if case .stateChanged("end", .notStarted) = $0.event { true } else { false } }
                    }
                }
                defer { follower.cancel() }
                try await agent.waitForEventStreams("the follower's event stream is open") { $0 >= 1 }
                #expect(await agent.stop() == 0)
                // As if the agent had died after the store saved `completed` and before the journal
                // appended it: the next start journals the completion again.
                let store = try await SQLiteDownloadStore(path: agent.state + "/agent.sqlite")
                let payload = try JSONEncoder().encode(DownloadEvent.stateChanged(id: "f", state: .downloading))
                try await store.appendToJournal([.init(downloadID: "f", state: .downloading, payload: payload)])
                await store.close()

                try await agent.start()
                try await agent.client.add(id: "end", url: URL(string: nginx.url("none"))!, destination: agent.downloads.appending(path: "end"))
                // The follower's events up to `end`; a failure names those it saw.
                let events = try await follower.value
                let completion = DownloadEvent.completed(id: "f", file: agent.downloads.appending(path: "f.bin"))
                #expect(events.filter { String(describing: $0.event) == String(describing: completion) }.count == 1, "\(events)")
            }
        }
    }
}
