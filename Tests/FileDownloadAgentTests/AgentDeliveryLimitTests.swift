import FileDownload
@testable import FileDownloadAgent
import FileDownloadAgentClient
import FileDownloadMock
import FileDownloadSQLite
import FileDownloadTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// `AgentDeliveries` in the test process, over a journal the test writes: the bound on the tries
/// that run at once, and a deliveries file whose cursor is ahead of a new journal.
@Suite("agent deliveries in-process")
struct AgentDeliveryLimitTests {
    /// A store and its journal in `directory`, a downloader over them (its `mock` scheme served
    /// by `mock`), and the deliveries with `configuration`; `body` gets the journal, the
    /// deliveries and the API over them, which are closed after it.
    func withDeliveries(in directory: TemporaryDirectory, configuration: DeliveryConfiguration, mock: MockTransport = MockTransport(),
                        store name: String = "agent.sqlite", _ body: (AgentEventLog, AgentDeliveries, AgentAPI) async throws -> Void) async throws {
        let store = try await SQLiteDownloadStore(path: directory.path(name))
        let log = try await AgentEventLog(store: store)
        var transports = TransportRegistry()
        transports.register(mock, for: "mock")
        let downloader = Downloader(configuration: DownloaderConfiguration(downloadsDirectory: directory.url),
                                    transports: transports, store: store)
        let deliveries = try await AgentDeliveries(path: directory.path("deliveries.json"), configuration: configuration,
                                                   log: log, downloader: downloader, logger: Logger(label: "test"))
        var api = AgentAPI(downloader: downloader, log: log)
        api.deliveries = deliveries
        do {
            try await body(log, deliveries, api)
        } catch {
            await deliveries.close()
            await downloader.shutdown()
            throw error
        }
        await deliveries.close()
        await downloader.shutdown()
    }

    @Test("at most maxConcurrentTries commands run at once: twelve completions with a cap of 2 run 2 at a time, each once")
    func concurrencyCap() async throws {
        let directory = try TemporaryDirectory("delivery-cap")
        defer { directory.remove() }
        let running = directory.path("running")
        try FileManager.default.createDirectory(atPath: running, withIntermediateDirectories: true)
        let log = directory.path("seen")
        // Each run marks itself running, waits (at most 5 s) until a second run is marked too, so two
        // certainly overlap, writes how many are marked, unmarks.
        var configuration = DeliveryConfiguration(command: """
            touch \(running)/$FDL_ID; for i in $(seq 50); do [ "$(ls \(running) | wc -l)" -ge 2 ] && break; sleep 0.1; done; \
            ls \(running) | wc -l >> \(log); rm \(running)/$FDL_ID
            """)
        configuration.maxConcurrentTries = 2
        try await withDeliveries(in: directory, configuration: configuration) { journal, deliveries, _ in
            try await journal.record((0..<12).map { DownloadEvent.completed(id: "d\($0)", file: directory.url.appending(path: "f\($0)")) })
            await deliveries.scan()
            try await poll("every completion delivered", limit: .seconds(120), interval: .milliseconds(20)) {
                let file = try? DeliveryFile.load(from: directory.path("deliveries.json"))
                return file?.pending.isEmpty == true
            }
        }
        let seen = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(seen.count == 12, "each completion's command ran once")
        #expect(seen.allSatisfy { $0 >= 1 && $0 <= 2 }, "never more than 2 at once: \(seen)")
        #expect(seen.contains(2), "2 ran at once: \(seen)")
    }

    @Test("aria2.purgeDownloadResult forgets a download's notify as DELETE does: a new download with the same id and no notify gets none of it")
    func purgeForgetsNotify() async throws {
        let directory = try TemporaryDirectory("delivery-purge")
        defer { directory.remove() }
        let mock = MockTransport()
        mock.serve(URL(string: "mock://files/p.bin")!, MockResource(.seeded(seed: 4, size: 1000)))
        try await withDeliveries(in: directory, configuration: DeliveryConfiguration(), mock: mock) { _, _, api in
            let request = AgentDownloadRequest(id: "p", url: "mock://files/p.bin", destination: directory.path("p.bin"),
                                               notify: AgentNotify(command: "exit 1"))
            _ = try await api.addOne(request)
            #expect(try DeliveryFile.load(from: directory.path("deliveries.json"))?.targets["p"] != nil)
            _ = try await api.downloader.outcome(of: "p")
            let token = try AgentToken.loadOrCreate(in: directory.path)
            try await Application(router: Aria2RPCTests.router(api, token: token, authority: Aria2RPCTests.host)).test(.router) { client in
                let caller = Aria2RPCTests.Caller(client: client, token: token.value)
                let purged = try await caller.result("aria2.purgeDownloadResult") as? String
                #expect(purged == "OK")
            }
            #expect(await api.downloader.info(of: "p") == nil)
            #expect(try DeliveryFile.load(from: directory.path("deliveries.json"))?.targets["p"] == nil,
                    "the purged download's command is forgotten")
        }
    }

    @Test("a refused add clears the notify only if it is still its own: a later add of the same id keeps the one it set")
    func compareAndClear() async throws {
        let directory = try TemporaryDirectory("delivery-settings")
        defer { directory.remove() }
        try await withDeliveries(in: directory, configuration: DeliveryConfiguration()) { _, deliveries, _ in
            let loser = try await deliveries.setTargets(AgentNotify(command: "exit 0"), of: "same")
            let winner = try await deliveries.setTargets(AgentNotify(command: "exit 0"), of: "same")
            await deliveries.clearTargets(of: "same", setting: loser)
            #expect(try DeliveryFile.load(from: directory.path("deliveries.json"))?.targets["same"] != nil,
                    "the loser's cleanup left the winner's targets")
            await deliveries.clearTargets(of: "same", setting: winner)
            #expect(try DeliveryFile.load(from: directory.path("deliveries.json"))?.targets["same"] == nil)
        }
    }

    @Test("a deliveries file whose cursor is ahead of a new journal: the journal is looked at from its start, under a new instance, so no completion is skipped and no key repeats")
    func cursorAheadOfNewJournal() async throws {
        let directory = try TemporaryDirectory("delivery-new-journal")
        defer { directory.remove() }
        let log = directory.path("ran")
        let configuration = DeliveryConfiguration(command: "echo \"$FDL_ID\" >> \(log)")
        var first: DeliveryFile?
        try await withDeliveries(in: directory, configuration: configuration) { journal, deliveries, _ in
            try await journal.record((0..<5).map { DownloadEvent.completed(id: "old\($0)", file: directory.url.appending(path: "o\($0)")) })
            await deliveries.scan()
            try await poll("the old completions delivered", limit: .seconds(60), interval: .milliseconds(20)) {
                (try? DeliveryFile.load(from: directory.path("deliveries.json")))?.pending.isEmpty == true
            }
            first = try DeliveryFile.load(from: directory.path("deliveries.json"))
        }
        let before = try #require(first)
        #expect(before.cursor == 5 && before.instance?.count == 16)
        // A new journal (agent.sqlite made again) beside the same deliveries file.
        try await withDeliveries(in: directory, configuration: configuration, store: "new.sqlite") { journal, deliveries, _ in
            try await journal.record([.completed(id: "new", file: directory.url.appending(path: "n"))])
            await deliveries.scan()
            try await poll("the new journal's completion delivered", limit: .seconds(60), interval: .milliseconds(20)) {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("new")
            }
            let after = try #require(try DeliveryFile.load(from: directory.path("deliveries.json")))
            #expect(after.cursor == 1, "the cursor follows the new journal")
            #expect(after.instance != nil && after.instance != before.instance, "a new instance: the keys are new")
        }
        let key = Delivery(sequence: 1, downloadID: "x", kind: .webhook, target: "", event: "", createdAt: Date(), instance: "00ff").idempotencyKey
        #expect(key == "00ff-1")
    }

    @Test("at most maxDeadLetters dead letters are kept: one more forgets the oldest")
    func deadLettersBounded() async throws {
        let directory = try TemporaryDirectory("delivery-dead-cap")
        defer { directory.remove() }
        var configuration = DeliveryConfiguration(command: "exit 1")
        configuration.lifetime = .zero
        configuration.maxDeadLetters = 3
        configuration.maxConcurrentTries = 1
        try await withDeliveries(in: directory, configuration: configuration) { journal, deliveries, _ in
            try await journal.record((0..<5).map { DownloadEvent.completed(id: "d\($0)", file: directory.url.appending(path: "f\($0)")) })
            await deliveries.scan()
            try await poll("every delivery dead", limit: .seconds(60), interval: .milliseconds(20)) {
                (try? DeliveryFile.load(from: directory.path("deliveries.json")))?.pending.isEmpty == true
            }
            let file = try #require(try DeliveryFile.load(from: directory.path("deliveries.json")))
            #expect(file.dead.count == 3 && Set(file.dead.map(\.downloadID)).count == 3, "3 kept: \(file.dead.map(\.downloadID))")
            let deadAt = file.dead.compactMap(\.deadAt)
            #expect(deadAt == deadAt.sorted(), "kept in the order they died (the oldest were dropped)")
        }
    }
}
