@testable import FileDownloadAgent
import Testing

/// The aria2 WebSocket's buffer of notifications not yet written to a slow client.
@Suite("aria2 WebSocket backlog")
struct Aria2WebSocketBacklogTests {
    @Test("a client that never reads holds at most the backlog: the notification past it is refused (and the connection closed)")
    func backlogBounded() async {
        let (stream, post) = Aria2WebSocket.notificationOutbox(capacity: 3)
        for index in 0..<3 {
            guard case .enqueued = post.yield("n\(index)") else {
                Issue.record("notification \(index) within the bound was refused")
                return
            }
        }
        guard case .dropped = post.yield("n3") else {
            Issue.record("the notification past the bound was buffered")
            return
        }
        post.finish()
        var kept: [String] = []
        for await text in stream { kept.append(text) }
        #expect(kept == ["n0", "n1", "n2"], "the oldest are kept, in order")
        #expect(Aria2WebSocket.notificationBacklog <= 1024)
    }
}
