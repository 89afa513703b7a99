import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// What a SIGKILL of the agent costs in bytes: a restarted agent continues every download from its
/// last checkpoint, so what the server sends twice is at most the bytes of one checkpoint window per
/// kill, measured on the server's side (nginx's `$body_bytes_sent` of every request).
@Suite("fdl agent: bytes fetched again after SIGKILL", .serialized)
struct AgentRefetchTests {
    /// nginx's rate for every request under `/steady/`, resumed ones (with `Range`) included.
    static let rate = 128 * 1024
    /// One checkpoint window at `rate`: the checkpoint interval (2 s), plus 1 s for the progress
    /// tick, the store's write and the restart, plus 1 s that nginx's `limit_rate` sends ahead
    /// (its budget is `rate × (seconds + 1)`), sitting in socket buffers when the agent dies.
    static let window = rate * (2 + 1 + 1)

    @Test("10 SIGKILLs of the agent during 5 downloads: every file byte-exact, bytes fetched twice within one checkpoint window per kill and download")
    func refetchAfterKillsIsBounded() async throws {
        try await NginxServer.withServer(locations: "location /steady/ { limit_rate \(Self.rate); }") { nginx, _ in
            try await AgentFixture.with(maxConcurrent: 5) { agent in
                // 8 MB at 128 KiB/s: about 64 s a download, all 5 at once, so the 10 kills (each
                // after 3 to 7 s of transfer, about 50 s in all) fall while they run. Kills further
                // apart than a window are what tells a restart from the checkpoint from one that
                // starts over: the latter fetches everything since the restart again.
                var files: [String: Data] = [:]
                for i in 1...5 {
                    let id = "b\(i)"
                    files[id] = try nginx.serve("steady/\(id).bin", sampleBytes(8_000_000 + i * 1111, seed: UInt8(60 + i)))
                    try await agent.client.start(id: id, url: URL(string: nginx.url("steady/\(id).bin"))!,
                                                 destination: agent.downloads.appending(path: "\(id).bin"))
                }
                var affected: [String: Int] = [:]
                var kills = 0
                while kills < 10 {
                    // Kill after 3, 5 or 7 s worth of bytes since the (re)start.
                    let gain = Int64(Self.rate * (3 + 2 * (kills % 3)))
                    let before = Dictionary(uniqueKeysWithValues: try await agent.client.downloads().map { ($0.id, $0.progress.receivedBytes) })
                    let list = try await agent.waitUntil("a download gained \(gain) bytes, or all are done") { list in
                        list.allSatisfy { $0.state == .completed }
                            || list.contains { $0.state == .downloading && $0.progress.receivedBytes >= (before[$0.id] ?? 0) + gain }
                    }
                    if list.allSatisfy({ $0.state == .completed }) { break }
                    for info in list where info.state != .completed { affected[info.id, default: 0] += 1 }
                    await agent.kill()
                    kills += 1
                    try await agent.start()
                }
                #expect(kills == 10, "the downloads must run long enough for 10 kills")
                try await agent.waitUntil("all complete") { $0.count == 5 && $0.allSatisfy { $0.state == .completed } }
                for (id, data) in files {
                    #expect(try Data(contentsOf: agent.downloads.appending(path: "\(id).bin")) == data, "\(id) byte-exact")
                }

                // What nginx sent for each file, once every request has been logged (a request cut
                // by a kill is logged when nginx next writes to the dead connection). Polled,
                // bounded: nothing announces that nginx appended to its log.
                var sent: [String: Int] = [:]
                let deadline = ContinuousClock.now + .seconds(30)
                repeat {
                    sent = Self.bytesSent(nginx.accessLog)
                    if files.allSatisfy({ sent[$0.key, default: 0] >= $0.value.count }) { break }
                    try await Task.sleep(for: .milliseconds(100))
                } while ContinuousClock.now < deadline
                for (id, data) in files.sorted(by: { $0.key < $1.key }) {
                    let again = sent[id, default: 0] - data.count
                    #expect(again >= 0, "\(id): nginx logged \(sent[id, default: 0]) bytes of \(data.count)")
                    #expect(again <= affected[id, default: 0] * Self.window,
                            "\(id): \(again) bytes fetched twice over \(affected[id, default: 0]) kills; at most \(Self.window) a kill")
                }
            }
        }
    }

    /// The bytes nginx sent per file under `/steady/`, summed over its requests, from access log
    /// lines like `200 "GET /steady/b1.bin HTTP/1.1" range="" ... bytes=12345 ...`.
    static func bytesSent(_ log: [String]) -> [String: Int] {
        var sent: [String: Int] = [:]
        for line in log {
            guard let start = line.range(of: "\"GET /steady/"),
                  let end = line[start.upperBound...].range(of: ".bin "),
                  let bytes = line.range(of: " bytes=") else { continue }
            let id = String(line[start.upperBound..<end.lowerBound])
            let count = Int(line[bytes.upperBound...].prefix { $0.isNumber }) ?? 0
            sent[id, default: 0] += count
        }
        return sent
    }
}
