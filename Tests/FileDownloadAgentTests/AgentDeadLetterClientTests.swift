import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// `DownloadAgentClient`'s dead-letter calls against `fdl agent` as a process.
@Suite("DownloadAgentClient: dead letters", .serialized)
struct AgentDeadLetterClientTests {
    @Test("deadLetters lists what the agent gave up on, dropDeadLetter forgets one, retryDeadLetter has the other delivered; unknown keys throw unknown-delivery")
    func listDropRetry() async throws {
        try await FaultServer.withRootAndOutput { server, root, _ in
            let data = sampleBytes(8_000, seed: 21)
            _ = try root.createFile("z.bin", contents: data)
            var down: RefusingPort? = try RefusingPort()
            let port = down!.port
            let hook = "http://127.0.0.1:\(port)/hook"
            let agent = try AgentFixture(arguments: ["--webhook", hook, "--delivery-lifetime", "0.3"] + AgentDeliveryTests.quickRetries)
            var receiver: WebhookReceiver?
            do {
                try await agent.start()
                for id in ["keep", "drop"] {
                    _ = try await agent.client.start(id: id, url: server.url("z.bin"), destination: agent.downloads.appending(path: "\(id).bin"))
                }
                var dead: [AgentDeadLetter] = []
                try await poll("both deliveries are dead letters", limit: .seconds(60), interval: .milliseconds(20)) {
                    dead = (try? await agent.client.deadLetters()) ?? []
                    return dead.count == 2
                }
                #expect(Set(dead.map(\.id)) == ["keep", "drop"])
                for letter in dead {
                    #expect(letter.kind == .webhook && letter.target == hook)
                    #expect(letter.key == "\(letter.sequence)-webhook")
                    #expect(letter.attempts >= 1 && letter.lastError?.isEmpty == false)
                    #expect(letter.deadAt != nil && letter.deadAt! >= letter.createdAt)
                    guard case .completed(let id, let file)? = letter.event else {
                        Issue.record("the dead letter's event is not the completion: \(String(describing: letter.event))")
                        continue
                    }
                    #expect(id == letter.id && file.lastPathComponent == "\(id).bin")
                }
                let keep = try #require(dead.first { $0.id == "keep" })
                let drop = try #require(dead.first { $0.id == "drop" })

                try await agent.client.dropDeadLetter(drop.key)
                await #expect(throws: DownloadAgentClientError.self) { try await agent.client.dropDeadLetter(drop.key) }
                do {
                    try await agent.client.retryDeadLetter(drop.key)
                    Issue.record("a dropped dead letter was retried")
                } catch let error as DownloadAgentClientError {
                    #expect(error.status == 404 && error.code == .unknownDelivery, "\(error)")
                }
                #expect(try await agent.client.deadLetters().map(\.key) == [keep.key])

                let hooks = try await WebhookReceiver.replacing(&down, port: port)
                receiver = hooks
                let retried = try await agent.client.retryDeadLetter(keep.key)
                #expect(retried.key == keep.key && retried.deadAt == nil && retried.attempts == 0)
                try await hooks.waitUntilOnlyAcknowledged(sequence: String(keep.sequence))
                #expect(hooks.acknowledgedKeys.first?.split(separator: "-").first?.count == 16, "\(hooks.acknowledgedKeys)")
                #expect(try await agent.client.deadLetters().isEmpty)
                #expect(hooks.calls.count == 1, "the dropped one is not delivered")
            } catch {
                await receiver?.stop()
                await agent.remove()
                throw error
            }
            await receiver?.stop()
            await agent.remove()
        }
    }
}
