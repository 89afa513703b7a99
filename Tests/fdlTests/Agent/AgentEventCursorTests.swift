import FileDownload
import FileDownloadAgentClient
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import Testing

/// A client that follows the events "from the present" keeps its place across agent restarts.
@Suite("fdl agent: following from the present")
struct AgentEventCursorTests {
    @Test("a client following from the present (since: nil) gets what a restart journals before the agent listens again")
    func presentCursorSurvivesRestart() async throws {
        try await NginxServer.withServer { nginx, _ in
            let agent = try AgentFixture()
            defer { agent.directory.remove() }
            try await agent.start()
            _ = try nginx.serve("f.bin", sampleBytes(50_000))
            try await agent.client.start(id: "f", url: URL(string: nginx.url("f.bin"))!, destination: agent.downloads.appending(path: "f.bin"))
            _ = try await agent.events(since: 0) { seen in
                seen.contains { if case .completed("f", _) = $0.event { true } else { false } }
            }

            let seen = Shared<[AgentEvent]>([])
            let follower = Task { [client = agent.client] in
                for try await event in client.events(since: nil, includeProgress: false) {
                    seen.withLock { $0.append(event) }
                }
            }
            defer { follower.cancel() }
            try await waitForEventStream(agent)
            #expect(await agent.stop() == 0)
            // As if the agent had died after the store saved `completed` and before the journal
            // appended it: the next start journals the completion before it listens.
            let store = try await SQLiteDownloadStore(path: agent.state + "/agent.sqlite")
            let payload = try JSONEncoder().encode(DownloadEvent.stateChanged(id: "f", state: .downloading))
            try await store.appendToJournal([.init(downloadID: "f", state: .downloading, payload: payload)])
            await store.close()

            try await agent.start()
            try await agent.client.add(id: "end", url: URL(string: nginx.url("none"))!, destination: agent.downloads.appending(path: "end"))
            let deadline = ContinuousClock.now + .seconds(120)
            func sawEnd() -> Bool {
                seen.withLock { $0.contains { if case .stateChanged("end", .notStarted) = $0.event { true } else { false } } }
            }
            while !sawEnd(), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let events = seen.withLock { $0 }
            #expect(sawEnd(), "\(events)")
            let completion = DownloadEvent.completed(id: "f", file: agent.downloads.appending(path: "f.bin"))
            #expect(events.filter { String(describing: $0.event) == String(describing: completion) }.count == 1, "\(events)")
            await agent.kill()
        }
    }

    /// Waits until the agent's health says an event stream is open.
    private func waitForEventStream(_ agent: AgentFixture) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let (status, body) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/health"])
            if status == 200, let health = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
               (health["eventStreams"] as? Int ?? 0) >= 1 {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("the client's event stream did not open")
    }
}
