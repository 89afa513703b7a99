import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The listeners' timeouts (`--header-timeout`, `--body-timeout`, `--idle-timeout`), shortened so
/// each close comes quickly; the test awaits the close itself (the peer sees the end of the
/// stream), bounded generously: without the timeouts it never comes.
@Suite("fdl agent: connections that keep it waiting are closed")
struct AgentConnectionTimeoutTests {
    static let arguments = ["--header-timeout", "0.3", "--body-timeout", "0.3", "--idle-timeout", "0.3"]

    @Test("half a request head, a stalled body, a silent kept-alive connection: each is closed on the socket; a whole request is answered")
    func timeoutsCloseOnTheSocket() async throws {
        try await AgentFixture.with(arguments: Self.arguments) { agent in
            // Half a head: closed without an answer.
            let half = try UnixConnection(path: agent.socket)
            try half.send("GET /v1/health HTTP/1.1\r\nHost: agent\r\nX-Half: ")
            #expect(try await half.readUntilClosed(seconds: 60) == "")

            // A head that announces a body, and half the body: closed.
            let body = try UnixConnection(path: agent.socket)
            try body.send("POST /v1/downloads HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":")
            #expect(try await body.readUntilClosed(seconds: 60) == "")

            // A whole request is answered, then the silent connection is closed after the answer.
            let idle = try UnixConnection(path: agent.socket)
            try idle.send("GET /v1/health HTTP/1.1\r\nHost: agent\r\n\r\n")
            let answer = try await idle.readUntilClosed(seconds: 60)
            #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("\"status\":\"ok\""), "\(answer)")
        }
    }

    @Test("a request answered before its body was read (a wrong method) is closed after the idle timeout once the body came")
    func earlyAnswerThenBodyIsClosedWhenIdle() async throws {
        // Long header and body timeouts: only the idle timeout can close this connection.
        try await AgentFixture.with(arguments: ["--header-timeout", "60", "--body-timeout", "60", "--idle-timeout", "0.3"]) { agent in
            let early = try UnixConnection(path: agent.socket)
            try early.send("POST /v1/health HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n")
            let answer = try await early.readSome(seconds: 60)
            #expect(answer.hasPrefix("HTTP/1.1 405"), "\(answer)")
            try early.send("{}")
            _ = try await early.readUntilClosed(seconds: 30)
        }
    }
}
