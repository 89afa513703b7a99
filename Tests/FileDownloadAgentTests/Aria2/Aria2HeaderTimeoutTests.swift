import FileDownloadTestSupport
import Foundation
import Testing

/// The TCP listener with the aria2 RPC keeps the header timeout: its WebSocket upgrade reads the
/// first head before the HTTP timeouts are in place, so a connection that sends half a head must
/// still be closed.
@Suite("fdl agent --aria2-rpc: half a first request head is closed after the header timeout")
struct Aria2HeaderTimeoutTests {
    @Test("half a head on TCP, for /jsonrpc and for the API: both closed without an answer")
    func halfHeadIsClosed() async throws {
        let agent = try WebAgent()
        do {
            try await agent.start(arguments: ["--aria2-rpc", "--header-timeout", "0.3"])
            for path in ["/jsonrpc", "/v1/health"] {
                // Waits at most 20 s for the close (without the timeout it never comes).
                let script = """
                    import socket
                    s = socket.create_connection(("127.0.0.1", \(agent.port)))
                    s.settimeout(20)
                    s.sendall(b"GET \(path) HTTP/1.1\\r\\nHost: 127.0.0.1:\(agent.port)\\r\\nUpgrade: websocket\\r\\nX-Half: ")
                    data = b""
                    while True:
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                    print("closed after %d bytes" % len(data))
                    """
                let (status, output, errors) = try await ChildProcess.run(["/usr/bin/python3", "-c", script], limit: .seconds(60))
                #expect(status == 0 && output.contains("closed after 0 bytes"), "\(path): \(output) \(errors)")
            }
            // A whole request still gets its answer.
            let health = try await agent.curl(["-H", "Authorization: Bearer \(try agent.token)", agent.url("/v1/health")])
            #expect(health.status == 200)
        } catch {
            await agent.remove()
            throw error
        }
        await agent.remove()
    }
}
