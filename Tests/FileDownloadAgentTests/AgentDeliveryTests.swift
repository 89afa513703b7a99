import Crypto
import FileDownload
@testable import FileDownloadAgent
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Completions delivered until acknowledged (docs/agent-api.md): `fdl agent` as a process, its
/// webhook a ``WebhookReceiver`` of the test, its command a shell script of the test.
@Suite("fdl agent: completions delivered until acknowledged", .serialized)
struct AgentDeliveryTests {
    /// Quick retries, so the tests wait for tries, not for the defaults' seconds.
    static let quickRetries = ["--delivery-retry-delay", "0.02", "--delivery-max-retry-delay", "0.1", "--delivery-timeout", "10"]

    @Test("a webhook receiver down, then answering 500, then 200 gets every completion, each key acknowledged once, across a SIGKILL of the agent; every body signed")
    func webhookUntilAcknowledged() async throws {
        try await FaultServer.withRootAndOutput { server, root, out in
            let secret = "a secret for the tests"
            let secretFile = try out.createFile("secret", contents: Data((secret + "\n").utf8))
            var files: [String: Data] = [:]
            for (index, id) in ["a", "b", "c", "d"].enumerated() {
                files[id] = sampleBytes(50_000 + index, seed: UInt8(index + 1))
                _ = try root.createFile("\(id).bin", contents: files[id]!)
            }
            var down: RefusingPort? = try RefusingPort()
            let port = down!.port
            let agent = try AgentFixture(arguments: ["--webhook", "http://127.0.0.1:\(port)/hook",
                                                     "--webhook-secret-file", secretFile] + Self.quickRetries)
            var receiver: WebhookReceiver?
            do {
                try await agent.start()
                for id in ["a", "b", "c"] {
                    _ = try await agent.client.start(id: id, url: server.url("\(id).bin"),
                                                     destination: agent.downloads.appending(path: "\(id).bin"))
                }
                try await agent.waitUntil("a, b and c complete (the receiver is down)") { list in
                    ["a", "b", "c"].allSatisfy { id in list.contains { $0.id == id && $0.state == .completed } }
                }
                await agent.kill()
                down = nil
                let hooks = try await WebhookReceiver.start(port: port, status: 500)
                receiver = hooks
                try await agent.start()
                try await poll("the receiver was asked about each of the three, answering 500", limit: .seconds(60)) {
                    Set(hooks.calls.compactMap(\.key)).count == 3
                }
                hooks.answer(200)
                try await poll("the three are acknowledged", limit: .seconds(60)) { Set(hooks.acknowledgedKeys).count == 3 }

                // A clean restart and one more completion: nothing acknowledged comes again.
                _ = await agent.stop()
                try await agent.start()
                _ = try await agent.client.start(id: "d", url: server.url("d.bin"), destination: agent.downloads.appending(path: "d.bin"))
                try await poll("d is acknowledged", limit: .seconds(60)) { Set(hooks.acknowledgedKeys).count == 4 }
                _ = await agent.stop()

                let calls = hooks.calls
                #expect(hooks.acknowledgedKeys.count == 4, "each key acknowledged once: \(hooks.acknowledgedKeys)")
                #expect(calls.contains { $0.status == 500 })
                for key in Set(hooks.acknowledgedKeys) {
                    let afterAcknowledged = calls.drop { !($0.key == key && $0.status == 200) }.dropFirst()
                    #expect(!afterAcknowledged.contains { $0.key == key }, "key \(key) came again after it was acknowledged")
                }
                var delivered: [String: String] = [:]
                for call in calls {
                    let parts = (call.key ?? "").split(separator: "-")
                    #expect(parts.count == 2 && parts[0].count == 16 && Int64(parts[1]) != nil,
                            "the idempotency key is INSTANCE-SEQUENCE: \(call.key ?? "none")")
                    // The receiver's check (docs/agent-api.md): HMAC-SHA256 of KEY "." BODY.
                    let expected = "sha256=" + hexString(HMAC<SHA256>.authenticationCode(for: Data(((call.key ?? "") + ".").utf8) + call.body,
                                                                                         using: SymmetricKey(data: Data(secret.utf8))))
                    #expect(call.signature == expected)
                    let event = try JSONDecoder().decode(DownloadEvent.self, from: call.body)
                    guard case .completed(let id, let file) = event else {
                        Issue.record("a webhook body is not a completed event: \(String(decoding: call.body, as: UTF8.self))")
                        continue
                    }
                    #expect(delivered[id, default: call.key ?? ""] == call.key, "one key per completion")
                    delivered[id] = call.key
                    #expect(try Data(contentsOf: file) == files[id])
                }
                #expect(delivered.keys.sorted() == ["a", "b", "c", "d"])
            } catch {
                await receiver?.stop()
                await agent.remove()
                throw error
            }
            await receiver?.stop()
            await agent.remove()
        }
    }

    @Test("a command that fails twice is run until it exits 0, with the file's id, path, size and SHA-256 in its environment")
    func commandUntilExitZero() async throws {
        try await FaultServer.withRootAndOutput { server, root, out in
            let data = sampleBytes(70_000, seed: 9)
            _ = try root.createFile("x.bin", contents: data)
            let script = try out.createFile("hook.sh", contents: Data("""
                n=$(cat "$1" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$1"
                echo "$n|$FDL_ID|$FDL_STATE|$FDL_SIZE|$FDL_SHA256|$FDL_SEQUENCE|$FDL_PATH" >> "$2"
                [ "$n" -ge 3 ]

                """.utf8))
            let log = out.path("runs")
            let agent = try AgentFixture(arguments: ["--on-complete", "sh \(script) \(out.path("count")) \(log)"] + Self.quickRetries)
            do {
                try await agent.start()
                let destination = agent.downloads.appending(path: "x.bin")
                _ = try await agent.client.start(id: "x", url: server.url("x.bin"), destination: destination)
                try await poll("the command exited 0 and nothing is pending", limit: .seconds(60), interval: .milliseconds(20)) {
                    let file = try? DeliveryFile.load(from: agent.state + "/deliveries.json")
                    return file?.pending.isEmpty == true && ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("3|")
                }
                _ = await agent.stop()
                let runs = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
                #expect(runs.map { $0[0] } == ["1", "2", "3"], "run until it exits 0, then not again")
                for run in runs {
                    #expect(Array(run[1...4]) == ["x", "completed", String(data.count), sha256Hex(data)])
                    #expect(Int64(run[5]) != nil && run[5] == runs[0][5], "the same event's sequence number each time")
                    #expect(run[6] == destination.path)
                }
            } catch {
                await agent.remove()
                throw error
            }
            await agent.remove()
        }
    }

    @Test("a delivery whose lifetime ends goes to the dead letters; the API lists it, drops one and retries another, which is then delivered")
    func deadLetters() async throws {
        try await FaultServer.withRootAndOutput { server, root, _ in
            _ = try root.createFile("y.bin", contents: sampleBytes(10_000, seed: 3))
            var down: RefusingPort? = try RefusingPort()
            let port = down!.port
            let hook = "http://127.0.0.1:\(port)/hook"
            let agent = try AgentFixture(arguments: ["--delivery-lifetime", "0.3"] + Self.quickRetries)
            var receiver: WebhookReceiver?
            do {
                try await agent.start()
                for id in ["keep", "drop"] {
                    // The download's own webhook (no agent default).
                    _ = try await agent.client.submit(AgentDownloadRequest(
                        id: id, url: server.url("y.bin").absoluteString, destination: agent.downloads.appending(path: "\(id).bin").path,
                        notify: AgentNotify(webhook: hook)))
                }
                var dead: [[String: Any]] = []
                try await poll("both deliveries are dead letters", limit: .seconds(60), interval: .milliseconds(20)) {
                    dead = (try? await Self.deadLetters(agent)) ?? []
                    return dead.count == 2
                }
                let keys = Dictionary(uniqueKeysWithValues: dead.map { ($0["id"] as? String ?? "", $0["key"] as? String ?? "") })
                for letter in dead {
                    #expect(letter["kind"] as? String == "webhook")
                    #expect(letter["target"] as? String == hook)
                    #expect((letter["event"] as? [String: Any])?["type"] as? String == "completed")
                    #expect((letter["attempts"] as? Int ?? 0) >= 1)
                    #expect((letter["lastError"] as? String)?.isEmpty == false)
                    #expect(letter["key"] as? String == "\(letter["sequence"] as? Int ?? -1)-webhook")
                }
                let dropped = try await CommandRun.curl(socket: agent.socket, ["-X", "DELETE", "http://localhost/v1/deliveries/dead/\(keys["drop"]!)"])
                #expect(dropped.status == 204)
                let again = try await CommandRun.curl(socket: agent.socket, ["-X", "DELETE", "http://localhost/v1/deliveries/dead/\(keys["drop"]!)"])
                #expect(again.status == 404 && again.body.contains("unknown-delivery"))

                let hooks = try await WebhookReceiver.replacing(&down, port: port)
                receiver = hooks
                let retried = try await CommandRun.curl(socket: agent.socket, ["-X", "POST", "http://localhost/v1/deliveries/dead/\(keys["keep"]!)/retry"])
                #expect(retried.status == 200, "\(retried.body)")
                try await hooks.waitUntilOnlyAcknowledged(sequence: String(keys["keep"]!.prefix { $0 != "-" }))
                #expect(try await Self.deadLetters(agent).isEmpty)
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

    @Test("the web page lists the dead letters; its Drop button forgets one, its Retry button has the other delivered")
    func pageDropsAndRetries() async throws {
        try WebAgent.requireChromium()
        try await FaultServer.withRootAndOutput { server, root, _ in
            _ = try root.createFile("p.bin", contents: sampleBytes(10_000, seed: 5))
            var down: RefusingPort? = try RefusingPort()
            let port = down!.port
            let agent = try WebAgent()
            var receiver: WebhookReceiver?
            do {
                try await agent.start(arguments: ["--webhook", "http://127.0.0.1:\(port)/hook", "--delivery-lifetime", "0.3"]
                                      + Self.quickRetries)
                let client = DownloadAgentClient(socketPath: agent.socket)
                for id in ["keep", "drop"] {
                    _ = try await client.start(id: id, url: server.url("p.bin"), destination: agent.downloads.appending(path: "\(id).bin"))
                }
                var dead: [[String: Any]] = []
                try await poll("both deliveries are dead letters", limit: .seconds(60), interval: .milliseconds(20)) {
                    dead = (try? await Self.deadLetters(socket: agent.socket)) ?? []
                    return dead.count == 2
                }
                let keys = Dictionary(uniqueKeysWithValues: dead.map { ($0["id"] as? String ?? "", $0["key"] as? String ?? "") })
                let hooks = try await WebhookReceiver.replacing(&down, port: port)
                receiver = hooks
                let (status, output, errors) = try await CommandRun.run([
                    "/usr/bin/timeout", "300", "/usr/bin/env", "python3", AgentWebPageTests.script, "--login", agent.loginURL,
                    "--id", "keep", "--dead", keys["keep"]!, "--drop", keys["drop"]!,
                ])
                #expect(status == 0, "drive_page.py: \(output) \(errors)")
                try await hooks.waitUntilOnlyAcknowledged(sequence: String(keys["keep"]!.prefix { $0 != "-" }))
                #expect(try await Self.deadLetters(socket: agent.socket).isEmpty)
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

    @Test("a command that runs longer than its timeout is killed with its whole process group, and the try counts as failed")
    func commandTimeout() async throws {
        let directory = try TemporaryDirectory("command-timeout")
        defer { directory.remove() }
        let pidFile = directory.path("pid")
        // The shell starts a grandchild and waits for it: both are in the command's process group.
        let outcome = await CompletionCommand("sleep 600 & echo $! > \(pidFile); wait", timeout: .milliseconds(300))
            .run(environment: [:])
        #expect(outcome == .timedOut(.milliseconds(300)))
        #expect(!outcome.succeeded)
        let grandchild = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        try await poll("the grandchild is gone (or a zombie waiting for init)", limit: .seconds(30), interval: .milliseconds(20)) {
            guard let stat = try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
        #expect(await CompletionCommand("exit 0").run(environment: [:]).succeeded)
        #expect(await CompletionCommand("exit 7").run(environment: [:]) == .exited(7))
    }

    @Test("the wait after n failed tries is the first delay doubled n-1 times, at most the largest, drawn between half and all of it")
    func retryDelays() {
        var configuration = DeliveryConfiguration()
        configuration.firstRetryDelay = .seconds(1)
        configuration.maxRetryDelay = .seconds(300)
        for attempts in [1, 2, 3, 8, 9, 10, 60, 10_000] {
            let full = min(Duration.seconds(1) * (1 << min(attempts - 1, 40)), .seconds(300))
            for _ in 0..<100 {
                let wait = AgentDeliveries.retryDelay(after: attempts, configuration: configuration)
                #expect(wait >= full / 2 && wait <= full, "after \(attempts) tries: \(wait), not within \(full / 2)...\(full)")
            }
        }
    }

    @Test("the webhook's signature is HMAC-SHA256 as RFC 4231 defines it (test cases 1 and 2)")
    func signatureVectors() {
        let one = WebhookSignature.value(of: Data("Hi There".utf8), secret: DeliverySecret(String(repeating: "\u{0b}", count: 20)))
        #expect(one == "sha256=b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let two = WebhookSignature.value(of: Data("what do ya want for nothing?".utf8), secret: DeliverySecret("Jefe"))
        #expect(two == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect("\(DeliverySecret("Jefe"))" == "<webhook secret>")
    }

    @Test("fdl get --on-complete runs the command once per completed file with its values; a failing one is reported, the exit status stays 0")
    func getOnComplete() async throws {
        try await FaultServer.withRootAndOutput { server, root, out in
            let data = sampleBytes(30_000, seed: 4)
            _ = try root.createFile("g.bin", contents: data)
            let log = out.path("get-runs")
            let command = "echo \"$FDL_ID|$FDL_STATE|$FDL_SIZE|$FDL_SHA256|$FDL_PATH\" >> \(log); exit 3"
            let run = try await FDLProcess.run(["get", server.url("g.bin").absoluteString, "-d", out.path("dl"), "--on-complete", command])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("--on-complete exited with status 3"), "\(run.stderr)")
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 1, "once per completed file: \(lines)")
            let fields = lines.first?.split(separator: "|", omittingEmptySubsequences: false).map(String.init) ?? []
            #expect(fields.first?.isEmpty == false, "FDL_ID")
            #expect(Array(fields.dropFirst()) == ["completed", String(data.count), sha256Hex(data), out.path("dl") + "/g.bin"])
        }
    }

    @Test("fdl get --on-complete-timeout: a run longer than it is killed with its process group and reported; fdl exits with the downloads' status")
    func getOnCompleteTimeout() async throws {
        try await FaultServer.withRootAndOutput { server, root, out in
            _ = try root.createFile("t.bin", contents: sampleBytes(2_000, seed: 6))
            let pidFile = out.path("pid")
            // The shell starts a grandchild and waits for it: both are in the command's process group.
            let command = "sleep 600 & echo $! > \(pidFile); wait"
            let run = try await FDLProcess.run(["get", server.url("t.bin").absoluteString, "-d", out.path("dl"),
                                                "--on-complete", command, "--on-complete-timeout", "0.5"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("--on-complete ran longer than 0.5 seconds and was killed"), "\(run.stderr)")
            let grandchild = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            try await poll("the grandchild is gone (or a zombie waiting for init)", limit: .seconds(30), interval: .milliseconds(20)) {
                guard let stat = try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8) else { return true }
                return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
            }
            let refused = try await FDLProcess.run(["get", server.url("t.bin").absoluteString, "-d", out.path("dl2"),
                                                    "--on-complete", "true", "--on-complete-timeout", "0"])
            #expect(refused.status != 0 && refused.stderr.contains("--on-complete-timeout"), "\(refused.stderr)")
        }
    }

    /// `GET /v1/deliveries/dead`'s deliveries.
    static func deadLetters(_ agent: AgentFixture) async throws -> [[String: Any]] {
        try await deadLetters(socket: agent.socket)
    }

    static func deadLetters(socket: String) async throws -> [[String: Any]] {
        let answer = try await CommandRun.curl(socket: socket, ["http://localhost/v1/deliveries/dead"])
        guard answer.status == 200,
              let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any] else {
            throw TestFailure("GET /v1/deliveries/dead answered \(answer.status): \(answer.body)")
        }
        return object["deliveries"] as? [[String: Any]] ?? []
    }
}
