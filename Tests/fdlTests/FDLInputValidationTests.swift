import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get` and `fdl add` (to the agent) refuse a bad URL, header field or SHA-256 with exit 64
/// and the message of the library's `InputValidation`, the one the agent's API and
/// `fdl add --postgres` give for the same input (AgentInputValidationTests,
/// FleetInputValidationTests); nothing is created.
@Suite struct FDLInputValidationTests {
    /// The message `InputValidation` gives for the input `check` refuses.
    static func message(_ check: () throws -> Void) -> String { ValidationMessage.of(check) }

    static let cases: [(what: String, arguments: [String], message: String)] = [
        ("port 99999", ["http://127.0.0.1:99999/x"],
         message { _ = try InputValidation.url("http://127.0.0.1:99999/x") }),
        ("port 0 with a password", ["http://me:hunter2@127.0.0.1:0/x"],
         message { _ = try InputValidation.url("http://me:hunter2@127.0.0.1:0/x") }),
        ("a header value with CR LF", ["http://127.0.0.1:9/x", "--header", "X-Token: s3cr3t\r\nInjected: 1"],
         message { _ = try InputValidation.header(name: "X-Token", value: "s3cr3t\r\nInjected: 1") }),
        // (A NUL cannot be passed in an argument: the agent's test sends one.)
        ("a secret header value with ESC", ["http://127.0.0.1:9/x", "--header-secret", "X-Token: s3cr3t\u{1B}[2J"],
         message { _ = try InputValidation.header(name: "X-Token", value: "s3cr3t\u{1B}[2J") }),
        ("a user agent with LF", ["http://127.0.0.1:9/x", "-U", "fdl\nInjected: 1"],
         message { _ = try InputValidation.header(name: "User-Agent", value: "fdl\nInjected: 1") }),
        ("a header name that is no token", ["http://127.0.0.1:9/x", "--header", "Bad Name: v"],
         message { _ = try InputValidation.header(name: "Bad Name", value: "v") }),
        ("a bad SHA-256", ["http://127.0.0.1:9/x", "--sha256", "xyz"],
         message { _ = try InputValidation.sha256("xyz") }),
    ]

    @Test("fdl get and fdl add: exit 64 with InputValidation's message", arguments: ["get", "add"])
    func badInputExits64WithTheLibrarysMessage(command: String) async throws {
        // `fdl add` checks before it looks for an agent; one a wrongly accepted input starts
        // lives in a home of its own and is stopped.
        let home = try BackgroundAgentHome()
        defer { home.directory.remove() }
        for item in Self.cases {
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            let run = try await FDLProcess.run([command] + item.arguments + ["-d", dir.path], environment: home.environment)
            if let started = BackgroundAgentHome.startedPID(in: run.stdout) {
                await home.stopAgent(pid: started)
                Issue.record("\(item.what): fdl add started an agent")
                return
            }
            #expect(run.status == 64, "\(item.what): \(run.stderr)")
            #expect(run.stderr.contains(item.message), "\(item.what): \(run.stderr)")
            #expect(!run.stderr.contains("hunter2") && !run.stderr.contains("s3cr3t"), "\(item.what): \(run.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "\(item.what)")
        }
    }

    @Test func aFreshURLWithABadPortIsRefusedWithTheSameMessage() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let run = try await FDLProcess.run(["url", "some-id", "http://127.0.0.1:99999/x", "-d", dir.path])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(Self.message { _ = try InputValidation.url("http://127.0.0.1:99999/x") }), "\(run.stderr)")
    }
}
