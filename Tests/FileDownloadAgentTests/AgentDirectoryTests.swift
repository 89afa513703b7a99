import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The agent makes private only the directories it creates; it never changes the mode of one that
/// was there (as `/tmp`), and refuses to put its socket or state into one others may write to.
@Suite("fdl agent: socket and state directories")
struct AgentDirectoryTests {
    @Test("an existing directory others may write to (as /tmp) is refused and keeps its mode")
    func sharedDirectoryRefused() async throws {
        let root = try TemporaryDirectory("agentdirs")
        defer { root.remove() }
        let shared = root.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        #expect(chmod(shared, 0o1777) == 0)

        let (status, errors) = try await startRefused(["agent", "--socket", shared + "/agent.sock", "--state", root.path("state")])
        #expect(status == 74 && errors.contains("\(shared) may be written by other users (mode 1777)"), "\(errors)")
        var info = stat()
        #expect(stat(shared, &info) == 0 && info.st_mode & 0o7777 == 0o1777)

        let (status2, errors2) = try await startRefused(["agent", "--socket", root.path("run/agent.sock"), "--state", shared])
        #expect(status2 == 74 && errors2.contains("may be written by other users"), "\(errors2)")
        #expect(stat(shared, &info) == 0 && info.st_mode & 0o7777 == 0o1777)
    }

    @Test("directories the agent creates are 0700; an existing private one keeps its mode")
    func createdDirectoriesPrivate() async throws {
        let root = try TemporaryDirectory("agentdirs")
        defer { root.remove() }
        let mine = root.path("mine")
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: false)
        #expect(chmod(mine, 0o755) == 0)
        let agent = try FDLProcess(["agent", "--socket", mine + "/agent.sock", "--state", root.path("a/b/state")])
        do {
            try await agent.waitForOutput(containing: "listening on")
        } catch {
            agent.send(SIGKILL)
            _ = await agent.exitStatus()
            throw TestFailure("fdl agent did not start: \(agent.stderr)")
        }
        var info = stat()
        #expect(stat(mine, &info) == 0 && info.st_mode & 0o7777 == 0o755)
        for created in ["a", "a/b", "a/b/state"] {
            #expect(stat(root.path(created), &info) == 0 && info.st_mode & 0o7777 == 0o700, "\(created)")
        }
        agent.send(SIGTERM)
        #expect(await agent.exitStatus() == 0)
    }

    /// Runs `fdl agent ...`, which should refuse to start; one that starts anyway is killed at
    /// once (exit 137), so the test fails instead of waiting.
    private func startRefused(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        let agent = try FDLProcess(arguments)
        agent.whenOutput(contains: "listening on") { agent.send(SIGKILL) }
        let status = await agent.exitStatus()
        return (status, agent.stderr)
    }
}
