import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// Ids that a path must escape (a space, an accent, `?`, `#`, `%`, `+`) reach the agent as they
/// are: its clients escape them as one path segment and the agent decodes it. Forgetting such a
/// download is an event another client sees.
@Suite("fdl agent: ids that need escaping", .timeLimit(.minutes(3)))
struct AgentEscapedIDTests {
    /// One id for each character a path must escape, and one with all of them.
    static let ids = ["with space", "accentué", "what?", "hash#tag", "100%", "a+b", "all of ?#%+é"]

    @Test("pause, resume, a fresh URL, cancel and forget reach downloads whose id has a space, an accent, ?, #, % or +, through the client and fdl; a second client sees each forget")
    func controlledThroughClientAndFDL() async throws {
        try await AgentFixture.with { agent in
            // A port that refuses connections, held for the test: each download stays unfinished
            // (interrupted and retried) for as long as the test needs.
            let refusing = try RefusingPort()
            defer { withExtendedLifetime(refusing) {} }
            let url = URL(string: "http://127.0.0.1:\(refusing.port)/s.bin")!
            let other = URL(string: "http://127.0.0.1:\(refusing.port)/s.bin?again")!
            let ids = Self.ids
            let start = try await agent.client.status().lastEventSequence
            // Another client: it follows the events and learns of every forget.
            let watcher = Task {
                try await agent.events(since: start) { seen in
                    ids.allSatisfy { id in seen.contains { if case .removed(id) = $0.event { true } else { false } } }
                }
            }
            for (index, id) in ids.enumerated() {
                try await agent.client.start(id: id, url: url, destination: agent.downloads.appending(path: "f\(index)"))
                #expect(try await agent.client.info(of: id)?.id == id)
                #expect(try await agent.client.pause(id).state == .paused, "\(id)")
                let resume = try await FDLProcess.run(["resume", id, "--socket", agent.socket])
                #expect(resume.status == 0, "\(id): \(resume.stderr)")
                #expect(try await agent.client.updateURL(id: id, to: other).url == other, "\(id)")
                let pause = try await FDLProcess.run(["pause", id, "--socket", agent.socket])
                #expect(pause.status == 0 && pause.stdout.contains("\(id): paused"), "\(id): \(pause.stdout) \(pause.stderr)")
                let cancel = try await FDLProcess.run(["cancel", id, "--socket", agent.socket])
                #expect(cancel.status == 0 && cancel.stdout.contains("\(id): cancelled"), "\(id): \(cancel.stdout) \(cancel.stderr)")
                try await agent.client.remove(id)
                #expect(try await agent.client.info(of: id) == nil, "\(id)")
            }
            let seen = try await watcher.value
            for id in ids {
                let events = seen.filter { $0.event.id == id }.map { "\($0.event)" }
                #expect(events.last?.hasPrefix("removed") == true, "\(id): \(events)")
            }
        }
    }

    @Test("an id's %-escapes are decoded by the agent (raw requests); a malformed escape is a 400 bad-id, an id with / a 404")
    func rawEscapes() async throws {
        try await AgentFixture.with { agent in
            let url = URL(string: "http://127.0.0.1:9/x")!
            try await agent.client.add(id: "a b?#%+é", url: url, destination: agent.downloads.appending(path: "a"))
            let (status, body) = try await CommandRun.curl(
                socket: agent.socket, ["http://agent/v1/downloads/a%20b%3F%23%25%2B%C3%A9"])
            #expect(status == 200 && body.contains(#""id":"a b?#%+é""#), "\(body)")
            // `+` in a path is a plus, not a space.
            try await agent.client.add(id: "1+1", url: url, destination: agent.downloads.appending(path: "b"))
            let (plus, plusBody) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/downloads/1+1"])
            #expect(plus == 200 && plusBody.contains(#""id":"1+1""#), "\(plusBody)")
            let (bad, badBody) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/downloads/100%zz"])
            #expect(bad == 400 && badBody.contains(#""error":"bad-id""#), "\(badBody)")
            let (slash, _) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/downloads/a%2Fb"])
            #expect(slash == 404)
        }
    }
}
