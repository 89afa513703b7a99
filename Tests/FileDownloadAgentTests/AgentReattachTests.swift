import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// Downloads that go on when the app is gone: a client adds downloads and leaves, the agent
/// completes them, a client that comes back with the last sequence number it handled gets exactly
/// what it missed.
@Suite("fdl agent: re-attaching clients", .serialized)
struct AgentReattachTests {
    @Test("an app process adds 5 slow downloads and exits; a new app process gets exactly their 5 completions; 3 times over")
    func reattachGetsMissedCompletions() async throws {
        let app = URL(fileURLWithPath: try FDLProcess.executable).deletingLastPathComponent().appending(path: "fdl-agent-app").path
        // 1 MB at 128 KiB/s: about 8 s a file, so the downloads still run when the app has exited
        // even on a busy machine (the app needs well under a second).
        try await NginxServer.withServer(slowRate: "128k") { nginx, _ in
            try await AgentFixture.with { agent in
                let cursorPath = agent.directory.path("cursor")
                for round in 1...3 {
                    // The app: starts 5 slow downloads, handles the events of its own adds, saves
                    // the cursor, and exits.
                    var files: [String: Data] = [:]
                    var arguments = [app, agent.socket, cursorPath, "start"]
                    for i in 1...5 {
                        let id = "r\(round)-\(i)"
                        files[id] = try nginx.serve("slow/\(id).bin", sampleBytes(1_000_000 + i * 1000, seed: UInt8(round * 10 + i)))
                        arguments += [id, nginx.url("slow/\(id).bin"), agent.downloads.appending(path: "\(id).bin").path]
                    }
                    let (started, _, startErrors) = try await CommandRun.run(arguments)
                    #expect(started == 0, "round \(round): \(startErrors)")
                    #expect(try await agent.client.downloads().filter { files[$0.id] != nil && $0.state == .completed }.count < 5,
                            "round \(round): the downloads must still run when the app exits (slow server)")
                    let since = try #require(try AgentCursorFile(path: cursorPath).load())

                    // Nobody listens while the agent completes them.
                    try await agent.waitUntil("round \(round) completes") { list in
                        files.keys.allSatisfy { id in list.contains { $0.id == id && $0.state == .completed } }
                    }
                    // Events in between: a download added (not started), forgotten after the round.
                    let marker = "marker-\(round)"
                    try await agent.client.add(id: marker, url: URL(string: nginx.url("none"))!,
                                               destination: agent.downloads.appending(path: marker))

                    // A new app process attaches with the cursor the first one saved.
                    let (attached, output, attachErrors) = try await CommandRun.run([app, agent.socket, cursorPath, "attach", marker])
                    #expect(attached == 0, "round \(round): \(attachErrors)")
                    let missed = try output.split(separator: "\n").map { line -> (Int64, DownloadEvent) in
                        let parts = line.split(separator: " ", maxSplits: 1)
                        return (Int64(parts[0]) ?? -1, try JSONDecoder().decode(DownloadEvent.self, from: Data(parts[1].utf8)))
                    }
                    let completions = missed.compactMap { _, event -> String? in
                        if case .completed(let id, _) = event { return id }
                        return nil
                    }
                    #expect(completions.sorted() == files.keys.sorted(), "round \(round): each completion once")
                    let sequences = missed.map(\.0)
                    #expect(sequences == Array((since + 1)...(since + Int64(sequences.count))),
                            "round \(round): sequence numbers after the cursor, without gap or repeat")
                    #expect(try AgentCursorFile(path: cursorPath).load() == sequences.last)
                    for (id, data) in files {
                        #expect(try Data(contentsOf: agent.downloads.appending(path: "\(id).bin")) == data, "\(id) byte-exact")
                    }
                    try await agent.client.remove(marker)
                }
            }
        }
    }

    @Test("SIGKILL of the agent during downloads, then a restart, 10 times: every file byte-exact, each completion announced once")
    func killAndRestart() async throws {
        try await NginxServer.withServer(slowRate: "256k") { nginx, _ in
            try await AgentFixture.with(maxConcurrent: 1) { agent in
                var files: [String: Data] = [:]
                for i in 1...5 {
                    let id = "k\(i)"
                    files[id] = try nginx.serve("slow/\(id).bin", sampleBytes(600_000 + i * 777, seed: UInt8(40 + i)))
                    try await agent.client.start(id: id, url: URL(string: nginx.url("slow/\(id).bin"))!,
                                                 destination: agent.downloads.appending(path: "\(id).bin"))
                }
                // One client follows the events across every kill, reconnecting by itself.
                let follower = Task { [client = agent.client] in
                    var seen: [AgentEvent] = []
                    for try await event in client.events(since: 0, includeProgress: false) {
                        seen.append(event)
                        if case .stateChanged("end", .notStarted) = event.event { break }
                    }
                    return seen
                }
                var kills = 0
                while kills < 10 {
                    // Kill once a download has bytes on disk and is still running.
                    let list = try await agent.waitUntil("a download is under way or all are done") { list in
                        list.allSatisfy { $0.state == .completed }
                            || list.contains { $0.state == .downloading && $0.progress.receivedBytes > 0 }
                    }
                    if list.allSatisfy({ $0.state == .completed }) { break }
                    await agent.kill()
                    kills += 1
                    try await agent.start()
                }
                #expect(kills >= 3, "the downloads must be slow enough to be killed during them")
                try await agent.waitUntil("all complete") { $0.count == 5 && $0.allSatisfy { $0.state == .completed } }
                for (id, data) in files {
                    #expect(try Data(contentsOf: agent.downloads.appending(path: "\(id).bin")) == data, "\(id) byte-exact")
                }
                // The whole journal: one completion per download, whatever the kills did.
                try await agent.client.add(id: "end", url: URL(string: nginx.url("none"))!,
                                           destination: agent.downloads.appending(path: "end"))
                let all = try await agent.events(since: 0) { seen in
                    seen.contains { if case .stateChanged("end", .notStarted) = $0.event { true } else { false } }
                }
                let completions = all.compactMap { event -> String? in
                    if case .completed(let id, _) = event.event { return id }
                    return nil
                }
                #expect(completions.sorted() == files.keys.sorted())
                // The follower saw the same journal, each entry once, in order, across the restarts.
                let followed = try await follower.value(within: 60, what: "the follower reaching the end")
                let sequences = followed.compactMap(\.sequence)
                #expect(sequences == all.compactMap(\.sequence), "a reconnecting client misses and repeats nothing")
            }
        }
    }
}
