import FileDownload
import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl add --postgres` refuses a bad id, URL or SHA-256 with exit 64 and the message of the
/// library's `InputValidation` (the message `fdl get` and the agent's API give for the same
/// input), before the queue is reached: nothing listens on the queue's port.
@Suite struct FleetInputValidationTests {
    /// The message `InputValidation` gives for the input `check` refuses.
    static func message(_ check: () throws -> Void) -> String { ValidationMessage.of(check) }

    @Test func badInputExits64WithTheLibrarysMessage() async throws {
        let base = ["add", "--postgres", "postgres://fdl@127.0.0.1:9/db"]
        let long = String(repeating: "x", count: 257)
        let cases: [(what: String, arguments: [String], message: String)] = [
            ("port 99999", ["http://127.0.0.1:99999/a.bin"], Self.message { _ = try InputValidation.url("http://127.0.0.1:99999/a.bin") }),
            ("port 0", ["http://127.0.0.1:0/a.bin"], Self.message { _ = try InputValidation.url("http://127.0.0.1:0/a.bin") }),
            ("a bad SHA-256", ["--sha256", "xyz", "http://127.0.0.1:9/a.bin"], Self.message { _ = try InputValidation.sha256("xyz") }),
            ("an empty id", ["--id", "", "http://127.0.0.1:9/a.bin"], Self.message { try InputValidation.checkIdentifier("") }),
            ("an id of 257 characters", ["--id", long, "http://127.0.0.1:9/a.bin"], Self.message { try InputValidation.checkIdentifier(long) }),
            ("an id with ESC", ["--id", "a\u{1B}[31mb", "http://127.0.0.1:9/a.bin"],
             Self.message { try InputValidation.checkIdentifier("a\u{1B}[31mb") }),
            ("an id with a line break", ["--id", "a\nb", "http://127.0.0.1:9/a.bin"], Self.message { try InputValidation.checkIdentifier("a\nb") }),
        ]
        for item in cases {
            let run = try await FDLProcess.run(base + item.arguments, environment: ["PGPASSWORD": "x"])
            #expect(run.status == 64, "\(item.what): \(run.stderr)")
            #expect(run.stderr.contains(item.message), "\(item.what): \(run.stderr)")
            #expect(!run.stderr.contains("connecting failed"), "\(item.what): refused before the queue is reached")
        }
    }

    @Test func anInputFileWithABadChecksumOrPortGetsTheSameMessage() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = dir.path("list.txt")
        for (text, message) in [
            ("http://127.0.0.1:9/a.bin\n  checksum=sha-256=xyz\n", Self.message { _ = try InputValidation.sha256("xyz") }),
            ("http://127.0.0.1:99999/a.bin\n", Self.message { _ = try InputValidation.url("http://127.0.0.1:99999/a.bin") }),
        ] {
            try text.write(toFile: list, atomically: true, encoding: .utf8)
            let run = try await FDLProcess.run(["add", "--postgres", "postgres://fdl@127.0.0.1:9/db", "-i", list],
                                               environment: ["PGPASSWORD": "x"])
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
        }
    }
}
