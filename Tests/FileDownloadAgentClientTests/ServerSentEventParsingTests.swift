@testable import FileDownloadAgentClient
import Testing

/// The client's reading of `text/event-stream`, whatever pieces the bytes arrive in.
@Suite("DownloadAgentClient: server-sent events")
struct ServerSentEventParsingTests {
    private let stream = ": comment\n\nid: 7\nevent: download\ndata: {\"a\":1}\n\nevent: progress\ndata: x\ndata: y\r\n\r\n"

    @Test("messages, ids, event names and multi-line data; comments skipped")
    func whole() {
        var parser = ServerSentEventParser()
        let messages = parser.feed(Array(stream.utf8))
        #expect(messages == [.init(id: "7", event: "download", data: "{\"a\":1}"), .init(id: nil, event: "progress", data: "x\ny")])
    }

    @Test("the same messages when the bytes come one at a time")
    func byteByByte() {
        var parser = ServerSentEventParser()
        var messages: [ServerSentEventParser.Message] = []
        for byte in stream.utf8 { messages += parser.feed([byte]) }
        #expect(messages.count == 2 && messages[0].id == "7" && messages[1].data == "x\ny")
    }
}
