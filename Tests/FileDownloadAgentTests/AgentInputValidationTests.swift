import FileDownload
import FileDownloadAgentClient
import FileDownloadTestSupport
import Foundation
import Testing

/// The agent's API answers a bad id, URL, header field or SHA-256 with 400, a typed code and the
/// message of the library's `InputValidation`: the message `fdl get` and `fdl add --postgres`
/// print for the same input with exit 64 (FDLInputValidationTests, FleetInputValidationTests).
@Suite("fdl agent: input validation", .serialized)
struct AgentInputValidationTests {
    /// The message `InputValidation` gives for the input `check` refuses.
    static func message(_ check: () throws -> Void) -> String { ValidationMessage.of(check) }

    @Test("each bad input is a 400 with its code and InputValidation's message, and nothing is added")
    func badInputIsA400WithTheLibrarysMessage() async throws {
        try await AgentFixture.with { agent in
            let url = "http://127.0.0.1:9/f"
            let long = String(repeating: "x", count: 257)
            let cases: [(what: String, request: AgentDownloadRequest, error: String, message: String)] = [
                ("port 99999", AgentDownloadRequest(id: "a", url: "http://127.0.0.1:99999/f", start: false),
                 "bad-url", Self.message { _ = try InputValidation.url("http://127.0.0.1:99999/f") }),
                ("port 0 with a password", AgentDownloadRequest(id: "a", url: "http://me:hunter2@127.0.0.1:0/f", start: false),
                 "bad-url", Self.message { _ = try InputValidation.url("http://me:hunter2@127.0.0.1:0/f") }),
                ("a header value with CR LF", AgentDownloadRequest(id: "a", url: url, headers: ["X-Token": "secret\r\nInjected: 1"], start: false),
                 "bad-header", Self.message { _ = try InputValidation.header(name: "X-Token", value: "secret\r\nInjected: 1") }),
                ("a header value with NUL", AgentDownloadRequest(id: "a", url: url, headers: ["X-Token": "sec\0ret"], start: false),
                 "bad-header", Self.message { _ = try InputValidation.header(name: "X-Token", value: "sec\0ret") }),
                ("a header name that is no token", AgentDownloadRequest(id: "a", url: url, headers: ["Bad Name": "v"], start: false),
                 "bad-header", Self.message { _ = try InputValidation.header(name: "Bad Name", value: "v") }),
                ("a bad SHA-256", AgentDownloadRequest(id: "a", url: url, sha256: "xyz", start: false),
                 "bad-sha256", Self.message { _ = try InputValidation.sha256("xyz") }),
                ("an empty id", AgentDownloadRequest(id: "", url: url, start: false),
                 "bad-id", Self.message { try InputValidation.checkIdentifier("") }),
                ("an id of 257 characters", AgentDownloadRequest(id: long, url: url, start: false),
                 "bad-id", Self.message { try InputValidation.checkIdentifier(long) }),
                ("an id with ESC", AgentDownloadRequest(id: "a\u{1B}[31mb", url: url, start: false),
                 "bad-id", Self.message { try InputValidation.checkIdentifier("a\u{1B}[31mb") }),
                ("an id with a line break", AgentDownloadRequest(id: "a\nb", url: url, start: false),
                 "bad-id", Self.message { try InputValidation.checkIdentifier("a\nb") }),
                ("a mirror with port 99999", AgentDownloadRequest(id: "a", url: url, mirrors: ["http://127.0.0.1:99999/f"], start: false),
                 "bad-mirror", "a mirror: " + Self.message { _ = try InputValidation.url("http://127.0.0.1:99999/f") }),
            ]
            for item in cases {
                let refused = await #expect(throws: DownloadAgentClientError.self, "\(item.what)") {
                    try await agent.client.submit(item.request)
                }
                #expect(refused?.status == 400, "\(item.what): \(String(describing: refused))")
                #expect(refused?.error == item.error, "\(item.what): \(String(describing: refused))")
                #expect(refused?.message == item.message, "\(item.what): \(String(describing: refused))")
                #expect(refused?.message.contains("hunter2") == false && refused?.message.contains("secret") == false)
            }
            #expect(try await agent.client.downloads().isEmpty)

            // A fresh URL with a bad port: the same rule and message.
            try await agent.client.submit(AgentDownloadRequest(id: "kept", url: url, start: false))
            let fresh = await #expect(throws: DownloadAgentClientError.self) {
                try await agent.client.updateURL(id: "kept", to: URL(string: "http://127.0.0.1:99999/f")!)
            }
            #expect(fresh?.status == 400 && fresh?.error == "bad-url", "\(String(describing: fresh))")
            #expect(fresh?.message == Self.message { _ = try InputValidation.url("http://127.0.0.1:99999/f") })
            #expect(try await agent.client.info(of: "kept")?.url.absoluteString == url)
        }
    }
}
