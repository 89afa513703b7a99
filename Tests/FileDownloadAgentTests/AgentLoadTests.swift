import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// The agent under load: a queue of downloads added through the API (in batches), 100 clients
/// following the event stream and listing at once while 16 downloads run. No timing is asserted
/// (the throughput with and without clients is measured by `Benchmarks/agent.sh`); what must hold
/// is that every client gets every journalled event, in order, that every list is whole, that the
/// downloads finish byte-exact and that the agent still serves.
///
/// Each client lists as a UI does: the summary, the first page, and the running downloads
/// (`state=waiting,downloading,completed`); every tenth also reads every page of the whole list.
/// `FDL_AGENT_LOAD_QUEUED` (default 10,000, the figure), `FDL_AGENT_LOAD_CLIENTS` (100),
/// `FDL_AGENT_LOAD_RUNNING` (16) and `FDL_AGENT_LOAD_LISTS` (lists per client, 1) scale it.
@Suite("fdl agent: under load", .serialized)
struct AgentLoadTests {
    static func setting(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }.map { max(1, $0) } ?? fallback
    }

    @Test("a queue of downloads; 100 clients list and stream while 16 downloads run: no event lost, every list whole, every file byte-exact")
    func queuedListedAndStreamed() async throws {
        let queued = Self.setting("FDL_AGENT_LOAD_QUEUED", 10_000)
        let clients = Self.setting("FDL_AGENT_LOAD_CLIENTS", 100)
        let running = Self.setting("FDL_AGENT_LOAD_RUNNING", 16)
        // 1 MB each at 256 KiB/s: about 4 s a download, so the clients list and stream while the
        // downloads run.
        try await NginxServer.withServer(slowRate: "256k") { nginx, _ in
            try await AgentFixture.with(maxConcurrent: running, journalCapacity: queued + 10_000,
                                        arguments: ["--max-connections-per-host", String(running)]) { agent in
                // 1. The queue: added with start: false, in batches of 1,000.
                let queuedIDs = (0..<queued).map { String(format: "q%05d", $0) }
                let results = try await agent.client.submit(queuedIDs.map { id in
                    AgentDownloadRequest(id: id, url: nginx.url("queued/\(id)"),
                                         destination: agent.downloads.appending(path: "queued/\(id)").path, start: false)
                })
                #expect(results.map(\.id) == queuedIDs && results.allSatisfy { $0.status == 201 })
                let since = try await agent.client.status().lastEventSequence

                // 2. The clients: each follows the stream from `since` until it saw every running
                //    download complete (half of them with live progress, half without), and lists
                //    the downloads while they run.
                var files: [String: Data] = [:]
                for i in 0..<running {
                    let id = "run\(i)"
                    files[id] = try nginx.serve("slow/\(id).bin", sampleBytes(1_000_000 + i * 1013, seed: UInt8(i + 1)))
                }
                let runningIDs = Set(files.keys)
                let expectedIDs = Set(queuedIDs).union(runningIDs)
                let followers = (0..<clients).map { n in
                    Task { [client = agent.client] in
                        try await Self.follow(client, since: since, until: runningIDs, progress: n % 2 == 0)
                    }
                }
                defer { followers.forEach { $0.cancel() } }
                try await agent.waitForEventStreams("\(clients) event streams are open", seconds: 120) { $0 >= clients }

                // 3. The running downloads, and the lists while they run.
                for (id, _) in files.sorted(by: { $0.key < $1.key }) {
                    try await agent.client.start(id: id, url: URL(string: nginx.url("slow/\(id).bin"))!,
                                                 destination: agent.downloads.appending(path: "\(id).bin"))
                }
                let listers = (0..<clients).map { n in
                    Task { [client = agent.client] in
                        try await Self.listWhileRunning(client, expected: expectedIDs, running: runningIDs, queued: queuedIDs,
                                                        whole: n % 10 == 0)
                    }
                }
                // The first client's stream ends when every running download completed.
                try await followers[0].value(within: 180, what: "the running downloads to complete")

                // 4. What every client saw: the journal after `since`, as one reader gets it now.
                let reference = try await agent.events(since: since) { seen in
                    Self.completions(seen).isSuperset(of: runningIDs)
                }.map(Self.describe)
                #expect(Set(reference.compactMap(\.id)).isSuperset(of: runningIDs))
                for (n, follower) in followers.enumerated() {
                    let seen = try await follower.value(within: 120, what: "client \(n)'s stream")
                    #expect(seen.map(\.sequence) == Array((since + 1)...(since + Int64(seen.count))),
                            "client \(n): sequence numbers after \(since) without gap or repeat")
                    #expect(seen == reference, "client \(n): the journal's events, in order")
                }
                for (n, lister) in listers.enumerated() {
                    try await lister.value(within: 120, what: "client \(n)'s list")
                }
                for (id, data) in files {
                    #expect(try Data(contentsOf: agent.downloads.appending(path: "\(id).bin")) == data, "\(id) byte-exact")
                }
                // The agent still serves, and still knows every download.
                let (status, health) = try await CommandRun.curl(socket: agent.socket, ["http://agent/v1/health"])
                #expect(status == 200 && health.contains("\"downloads\":\(expectedIDs.count)"), "\(health)")
                #expect(Set(try await agent.client.downloads().map(\.id)) == expectedIDs)
            }
        }
    }

    /// One journalled event as the test compares it.
    struct Seen: Equatable {
        var sequence: Int64
        var id: String?
        var event: String
    }

    static func describe(_ event: AgentEvent) -> Seen {
        Seen(sequence: event.sequence ?? -1, id: event.event.id, event: "\(event.event)")
    }

    static func completions(_ events: [AgentEvent]) -> Set<String> {
        Set(events.compactMap { if case .completed(let id, _) = $0.event { id } else { nil } })
    }

    /// Follows the stream from `since` until every id in `ids` completed; returns the journalled
    /// events (live progress is read and dropped).
    static func follow(_ client: DownloadAgentClient, since: Int64, until ids: Set<String>, progress: Bool) async throws -> [Seen] {
        var seen: [Seen] = []
        var completed = Set<String>()
        for try await event in client.events(since: since, includeProgress: progress) {
            guard event.sequence != nil else { continue }
            seen.append(describe(event))
            if case .completed(let id, _) = event.event { completed.insert(id) }
            if completed.isSuperset(of: ids) { break }
        }
        return seen
    }

    /// Lists `FDL_AGENT_LOAD_LISTS` times, one after the other, while the running downloads run:
    /// the summary counts every download and the queued ones not started; the first page is the
    /// head of the queue; the running ones (`state=waiting,downloading,completed`) are exactly the
    /// started ones, with no fewer bytes than the list before. With `whole`, every page of the
    /// list too: together they name each download once, the queued ones not started.
    static func listWhileRunning(_ client: DownloadAgentClient, expected: Set<String>, running: Set<String>,
                                 queued: [String], whole: Bool) async throws {
        var received: [String: Int64] = [:]
        for _ in 0..<Self.setting("FDL_AGENT_LOAD_LISTS", 1) {
            let summary = try await client.summary()
            #expect(summary.downloads == expected.count && summary.states["notStarted"] == queued.count, "\(summary)")
            let first = try await client.page(limit: 100)
            #expect(first.downloads.map(\.id) == Array(queued.prefix(100)), "the first page is the head of the queue")
            let active = try await client.downloads(states: [.waiting, .downloading, .completed])
            #expect(Set(active.map(\.id)) == running && active.count == running.count, "the running ones, each once")
            for info in active {
                let before = received[info.id] ?? 0
                #expect(info.state == .completed || info.progress.receivedBytes >= before, "\(info.id)'s bytes only grow")
                received[info.id] = info.progress.receivedBytes
            }
            guard whole else { continue }
            let list = try await client.downloads()
            let ids = list.map(\.id)
            #expect(ids.count == expected.count && Set(ids) == expected, "the pages name every download once")
            let queuedSet = Set(queued)
            for info in list where queuedSet.contains(info.id) {
                #expect(info.state == .notStarted, "\(info.id) stays queued: \(info.state)")
            }
        }
    }
}
