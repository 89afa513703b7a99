import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An `fdl agent` process of this build with its own socket, state and downloads directories in
/// one temporary directory, and a client for it. The agent can be stopped, killed and started again
/// on the same state, as systemd would.
final class AgentFixture: Sendable {
    let directory: TemporaryDirectory
    let maxConcurrent: Int
    let journalCapacity: Int
    /// More options of `fdl agent` (`--limit-rate-total`, `--fresh-url-timeout`).
    let extraArguments: [String]
    /// Changes to the agent's environment (`AWS_ACCESS_KEY_ID` for `s3://`, say); `nil` removes.
    let environment: [String: String?]
    private let current = Shared<FDLProcess?>(nil)

    /// The socket: `DIR/run/agent.sock`.
    var socket: String { directory.path("run/agent.sock") }
    var socketDirectory: String { directory.path("run") }
    var state: String { directory.path("state") }
    /// Where the downloads of the tests go.
    var downloads: URL { directory.file("out") }
    var client: DownloadAgentClient { DownloadAgentClient(socketPath: socket) }
    var process: FDLProcess? { current.withLock { $0 } }

    init(maxConcurrent: Int = 4, journalCapacity: Int = 10_000, arguments: [String] = [],
         environment: [String: String?] = [:]) throws {
        directory = try TemporaryDirectory("agent")
        extraArguments = arguments
        self.environment = environment
        self.maxConcurrent = maxConcurrent
        self.journalCapacity = journalCapacity
        try FileManager.default.createDirectory(at: directory.file("out"), withIntermediateDirectories: true)
    }

    /// Starts `fdl agent` and returns once it accepts connections.
    @discardableResult
    func start() async throws -> FDLProcess {
        let agent = try FDLProcess(["agent", "--socket", socket, "--state", state, "--downloads", downloads.path,
                                    "--max-concurrent", String(maxConcurrent), "--journal-capacity", String(journalCapacity)] + extraArguments,
                                   environment: environment)
        current.withLock { $0 = agent }
        do {
            try await agent.waitForOutput(containing: "listening on")
        } catch {
            throw TestFailure("fdl agent did not start: \(agent.stderr)")
        }
        return agent
    }

    /// SIGKILLs the agent and waits until it is gone.
    func kill() async {
        guard let agent = process else { return }
        agent.send(SIGKILL)
        _ = await agent.exitStatus()
    }

    /// SIGTERMs the agent and returns its exit status.
    func stop() async -> Int32? {
        guard let agent = process else { return nil }
        agent.send(SIGTERM)
        return await agent.exitStatus()
    }

    /// Stops the agent (SIGKILL) and removes every file.
    func remove() async {
        await kill()
        directory.remove()
    }

    /// Runs `body` with a started agent, and removes everything afterwards.
    static func with(maxConcurrent: Int = 4, journalCapacity: Int = 10_000, arguments: [String] = [],
                     _ body: (AgentFixture) async throws -> Void) async throws {
        let fixture = try AgentFixture(maxConcurrent: maxConcurrent, journalCapacity: journalCapacity, arguments: arguments)
        do {
            try await fixture.start()
            try await body(fixture)
        } catch {
            await fixture.remove()
            throw error
        }
        await fixture.remove()
    }

    /// Returns the agent's list once `condition` holds for it; fails after `seconds`. The list is
    /// read at once and again after each of the agent's events (progress included; a burst is one
    /// read), which a change of the list comes with: no polling. The events are followed from the
    /// journal's last sequence number before the first read, so no journalled change is missed.
    @discardableResult
    func waitUntil(_ what: String, seconds: Double = 120,
                   _ condition: ([DownloadInfo]) -> Bool) async throws -> [DownloadInfo] {
        let client = self.client
        let since = try await client.status().lastEventSequence
        let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let failure = Shared<String?>(nil)
        let follower = Task {
            do {
                for try await _ in client.events(since: since, includeProgress: true) { changed.yield() }
            } catch {
                failure.withLock { $0 = "; the agent's events ended with \(error)" }
                changed.finish()
            }
        }
        let deadline = Task {
            try? await Task.sleep(for: .seconds(seconds))
            changed.finish()
        }
        defer {
            follower.cancel()
            deadline.cancel()
        }
        changed.yield()
        var last: [DownloadInfo] = []
        for await _ in changes {
            last = try await client.downloads()
            if condition(last) { return last }
        }
        throw TestFailure("timed out waiting until \(what)\(failure.withLock { $0 } ?? ""); downloads: \(last.map { "\($0.id)=\($0.state)" })")
    }

    /// Polls the agent's health until its count of open event streams satisfies `condition`, and
    /// returns that count; fails after `seconds`. Polled: the agent announces no event when a
    /// stream opens or ends. (A stream whose client went away is counted until the agent's next
    /// write to it: an event, or the keep-alive within 15 s.)
    @discardableResult
    func waitForEventStreams(_ what: String, seconds: Double = 60, _ condition: (Int) -> Bool) async throws -> Int {
        var last = -1
        do {
            try await poll(what, limit: .seconds(seconds), interval: .milliseconds(50)) {
                last = (try? await client.status().eventStreams) ?? -1
                return condition(last)
            }
        } catch {
            throw TestFailure("timed out waiting until \(what); the agent counts \(last) event streams")
        }
        return last
    }

    /// Reads the agent's events after `since` (`nil`: from the present, as the stream's `ready`
    /// names it) until `stop` says so, and returns them; fails after `seconds`, naming the events
    /// seen, and with the stream's error when it ends first.
    func events(since: Int64?, seconds: Double = 120, until stop: @escaping @Sendable ([AgentEvent]) -> Bool) async throws -> [AgentEvent] {
        let stream = client.events(since: since, includeProgress: false)
        let seen = Shared<[AgentEvent]>([])
        let reader = Task {
            for try await event in stream {
                let all = seen.withLock { seen in
                    seen.append(event)
                    return seen
                }
                if stop(all) { return all }
            }
            return seen.withLock { $0 }
        }
        do {
            return try await reader.value(within: seconds, what: "the agent's events after \(since.map(String.init) ?? "the present")")
        } catch let failure as TestFailure {
            throw TestFailure("\(failure); seen: \(seen.withLock { $0 }.map { "\($0.sequence.map(String.init) ?? "-") \($0.event)" })")
        }
    }
}
